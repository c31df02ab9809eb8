import { Injectable } from '@nestjs/common';
import { DataSource, In, type Repository } from 'typeorm';
import { VideoState } from './video-state';
import { VideoEntity } from './video.entity';

/** A video's content as the import writes it; state and timestamps are the database's. */
export interface VideoContent {
  id: string;
  authorId: string;
  title: string;
  description: string;
  tags: string[];
  publishedAt: Date | null;
}

/** Plain data access for videos: no rules here, the services hold those. */
@Injectable()
export class VideoRepository {
  private readonly videos: Repository<VideoEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.videos = dataSource.getRepository(VideoEntity);
  }

  /** Inserts new videos and updates the content of existing ones (bumping their version); state is kept. */
  async upsertContent(rows: VideoContent[]): Promise<void> {
    if (rows.length === 0) return;
    const placeholders = rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
    const values = rows.flatMap((row) => [
      row.id,
      row.authorId,
      row.title,
      row.description,
      JSON.stringify(row.tags),
      row.publishedAt,
    ]);
    // VALUES(col) is deprecated in MySQL 8 but is the one upsert syntax MySQL and MariaDB share.
    await this.dataSource.query(
      `INSERT INTO videos (id, author_id, title, description, tags, published_at) VALUES ${placeholders}
       ON DUPLICATE KEY UPDATE
         author_id = VALUES(author_id), title = VALUES(title), description = VALUES(description),
         tags = VALUES(tags), published_at = VALUES(published_at),
         version = version + 1, updated_at = CURRENT_TIMESTAMP(3)`,
      values,
    );
  }

  findByIds(ids: string[]): Promise<VideoEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.videos.findBy({ id: In(ids) });
  }

  /** The active videos among `ids`, in one query: MySQL decides what a search may show. */
  findActiveByIds(ids: string[]): Promise<VideoEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.videos.findBy({ id: In(ids), state: VideoState.Active });
  }

  count(): Promise<number> {
    return this.videos.count();
  }
}
