import type { ConfigError } from '../config/load-config';

/** What the SDK's module saw: whether it was loaded at all, and each start and stop. */
const mockSdk = { loaded: false, started: [] as string[], stopped: 0 };

jest.mock('./sdk', () => {
  mockSdk.loaded = true;
  return {
    startSdk: (service: string) => {
      mockSdk.started.push(service);
      return { shutdown: () => Promise.resolve(void mockSdk.stopped++) };
    },
  };
});

/** The module afresh, as a process starts it (it remembers a started SDK), with a fake SDK that records its load. */
function load() {
  jest.resetModules();
  Object.assign(mockSdk, { loaded: false, started: [], stopped: 0 });
  return { tracing: jest.requireActual<typeof import('./tracing')>('./tracing'), sdk: mockSdk };
}

describe('startTracing', () => {
  const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

  it('without OTEL_EXPORTER_OTLP_ENDPOINT loads no part of the SDK', async () => {
    const { tracing, sdk } = load();
    expect(tracing.startTracing('video-api', {})).toBe(false);
    expect(tracing.startTracing('video-api', { OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    await tracing.stopTracing();
    expect(sdk).toEqual({ loaded: false, started: [], stopped: 0 });
  });

  it('with it starts the SDK once, as the process unless OTEL_SERVICE_NAME says otherwise, and stops it', async () => {
    const { tracing, sdk } = load();
    expect(tracing.startTracing('video-worker', ENDPOINT)).toBe(true);
    expect(tracing.startTracing('video-worker', ENDPOINT)).toBe(true);
    expect(sdk.started).toEqual(['video-worker']);
    await tracing.stopTracing();
    await tracing.stopTracing();
    expect(sdk.stopped).toBe(1);

    const named = load();
    named.tracing.startTracing('video-api', { ...ENDPOINT, OTEL_SERVICE_NAME: 'videos-eu' });
    expect(named.sdk.started).toEqual(['videos-eu']);
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT: must be a URL like'],
    [{ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL: must be'],
    [{ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER: must be one of'],
    [
      { ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '10%' },
      'OTEL_TRACES_SAMPLER_ARG: must be a ratio',
    ],
    [{ ...ENDPOINT, OTEL_TRACES_SAMPLER_ARG: '0.1' }, 'OTEL_TRACES_SAMPLER_ARG: is read only by'],
    [{ ...ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS: 'secret-key' }, 'OTEL_EXPORTER_OTLP_HEADERS: must be'],
  ])('refuses %j before any span is made, naming the variable', (env, problem) => {
    const { tracing, sdk } = load();
    let error: unknown;
    try {
      tracing.startTracing('video-api', env);
    } catch (thrown) {
      error = thrown;
    }
    // Each load has its own copy of the ConfigError class: the name says which error it is.
    expect((error as Error).name).toBe('ConfigError');
    expect((error as ConfigError).problems).toEqual([expect.stringContaining(problem)]);
    expect((error as ConfigError).message).not.toContain('secret-key');
    expect(sdk.loaded).toBe(false);
  });

  it('takes a ratio for the ratio samplers', () => {
    const { tracing, sdk } = load();
    tracing.startTracing('video-api', {
      ...ENDPOINT,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(sdk.started).toEqual(['video-api']);
  });
});
