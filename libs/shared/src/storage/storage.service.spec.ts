import { loadConfig } from '../config/load-config';
import { s3Credentials } from './storage.service';

describe('the S3 credentials', () => {
  it("are the keys when set; without them, the AWS SDK's default chain in production, the local keys elsewhere", () => {
    expect(s3Credentials(loadConfig({ S3_ACCESS_KEY_ID: 'AKIA1', S3_SECRET_ACCESS_KEY: 's3cret' }))).toEqual({
      accessKeyId: 'AKIA1',
      secretAccessKey: 's3cret',
    });
    expect(s3Credentials(loadConfig({}))).toEqual({
      accessKeyId: 'videos-local',
      secretAccessKey: 'videos-local-secret',
    });
    expect(s3Credentials(loadConfig({ NODE_ENV: 'production' }))).toBeUndefined();
  });
});
