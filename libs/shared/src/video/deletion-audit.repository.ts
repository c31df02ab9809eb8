import { Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { DeletionAuditEntity } from './deletion-audit.entity';

/** Plain data access for the audit records purges leave behind. */
@Injectable()
export class DeletionAuditRepository {
  private readonly audits: Repository<DeletionAuditEntity>;

  constructor(dataSource: DataSource) {
    this.audits = dataSource.getRepository(DeletionAuditEntity);
  }

  findByVideoId(videoId: string): Promise<DeletionAuditEntity | null> {
    return this.audits.findOneBy({ videoId });
  }
}
