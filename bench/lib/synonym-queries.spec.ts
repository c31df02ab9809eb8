import { numeronym, SYNONYM_KIND, synonymQueries, type SynonymVideo } from './synonym-queries';

/** A word of letters only, different for each number. */
const letters = (n: number) => n.toString(26).replace(/[0-9]/g, (digit) => 'qrstuvwxyz'[Number(digit)]!);

const videos: SynonymVideo[] = Array.from({ length: 200 }, (_, i) => ({
  id: `video-${i}`,
  title: `Orchestrating ${letters(i)}containers with ${['Kubernetes', 'Nomad', 'Swarm'][i % 3]} clusters`,
  description: 'A talk about k8s and clusters.',
  tags: [],
  speakers: ['Some One'],
  event: null,
}));

describe('synonymQueries', () => {
  it('writes a title word as a numeronym no video holds, beside a title word that makes the pair unique', () => {
    const { queries, rules } = synonymQueries(videos, 20);
    expect(synonymQueries(videos, 20)).toEqual({ queries, rules });
    expect(queries).toHaveLength(20);
    const byId = new Map(videos.map((video) => [video.id, video]));
    for (const query of queries) {
      expect(query.kind).toBe(SYNONYM_KIND);
      const [short, other] = query.q.split(' ');
      const title = byId.get(query.target)!.title.toLowerCase();
      const word = title.split(' ').find((w) => w.length >= 8 && numeronym(w) === short)!;
      expect(word).toBeDefined();
      expect(title).toContain(other);
      expect(rules).toContain(`${short}, ${word}`);
      // `k8s` is in the descriptions: Kubernetes is never written so.
      expect(short).not.toBe('k8s');
    }
  });
});
