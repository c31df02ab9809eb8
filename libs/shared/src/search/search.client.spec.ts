import { createSearchClient, elasticsearchNodes, promptRetryBackoff } from './search.client';

describe('promptRetryBackoff', () => {
  it('waits 50–100 ms before the first retry and 100–200 ms before the second', () => {
    expect(promptRetryBackoff(0, 4, 1, () => 0)).toBeCloseTo(0.05);
    expect(promptRetryBackoff(0, 4, 1, () => 0.999)).toBeLessThan(0.1);
    expect(promptRetryBackoff(0, 4, 2, () => 0)).toBeCloseTo(0.1);
    expect(promptRetryBackoff(0, 4, 2, () => 0.999)).toBeLessThan(0.2);
  });

  it('keeps the two retries of a request under half a second in all, where the default took 3–6 s', () => {
    expect(promptRetryBackoff(0, 4, 1, () => 0.999) + promptRetryBackoff(0, 4, 2, () => 0.999)).toBeLessThan(
      0.5,
    );
  });
});

describe('ELASTICSEARCH_URL', () => {
  it('names one node, or several separated by commas', () => {
    expect(elasticsearchNodes('http://127.0.0.1:9200')).toEqual(['http://127.0.0.1:9200']);
    expect(elasticsearchNodes('http://a:9200, http://b:9200,')).toEqual(['http://a:9200', 'http://b:9200']);
  });

  it('gives the client every node it names', async () => {
    const client = createSearchClient({ ELASTICSEARCH_URL: 'http://a:9200,http://b:9201' });
    try {
      expect(client.connectionPool.connections.map((c) => c.url.href)).toEqual([
        'http://a:9200/',
        'http://b:9201/',
      ]);
    } finally {
      await client.close();
    }
  });
});
