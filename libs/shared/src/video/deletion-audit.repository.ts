import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { DeletionAuditEntity } from './deletion-audit.entity';

/** Plain data access for the audit records purges leave behind. */
@Injectable()
export class DeletionAuditRepository {
  private readonly audits: Repository<DeletionAuditEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.audits = dataSource.getRepository(DeletionAuditEntity);
  }

  findByVideoId(videoId: string): Promise<DeletionAuditEntity | null> {
    return this.audits.findOneBy({ videoId });
  }

  /** When the newest deletion MySQL knows of ended, or null when it knows of none. */
  async newestPurgedAt(): Promise<Date | null> {
    const rows: { newest: Date | null }[] = await this.dataSource.query(
      'SELECT MAX(purged_at) AS newest FROM deletion_audit',
    );
    return rows[0]?.newest ?? null;
  }

  /** Which of these videos have an audit record. */
  async auditedIds(videoIds: string[]): Promise<Set<string>> {
    if (videoIds.length === 0) return new Set();
    const rows: { id: string }[] = await this.dataSource.query(
      'SELECT video_id AS id FROM deletion_audit WHERE video_id IN (?)',
      [videoIds],
    );
    return new Set(rows.map((row) => row.id));
  }
}
