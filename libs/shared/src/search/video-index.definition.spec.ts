import type { estypes } from '@elastic/elasticsearch';
import { INDEX_DEFINITION_VERSION, VIDEO_FIELDS, videoIndexMappings } from './video-index.definition';

/** Every field path the mapping defines: `folded.title` for a property of an object property. */
function leafPaths(properties: Record<string, estypes.MappingProperty>, prefix = ''): string[] {
  return Object.entries(properties).flatMap(([name, property]) =>
    'properties' in property && property.properties
      ? leafPaths(property.properties, `${prefix}${name}.`)
      : [`${prefix}${name}`],
  );
}

describe('the video index definition', () => {
  it('names every field of the mapping once in VIDEO_FIELDS, and nothing else', () => {
    const named = Object.values(VIDEO_FIELDS);
    expect(new Set(named).size).toBe(named.length);
    expect([...named].sort()).toEqual(leafPaths(videoIndexMappings.properties!).sort());
  });

  it('records its version in the mapping of every index built from it', () => {
    expect(videoIndexMappings._meta).toEqual({ definitionVersion: INDEX_DEFINITION_VERSION });
  });
});
