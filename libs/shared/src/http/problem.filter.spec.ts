import { type ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { ProblemDetailsFilter } from './problem.filter';
import { ProblemException, type ProblemBody } from './problem';

/** A reply that records what the filter sends, and the request it answers. */
function exchange() {
  const sent: { status?: number; type?: string; headers: Record<string, string>; body?: ProblemBody } = {
    headers: {},
  };
  const reply = {
    status(code: number) {
      sent.status = code;
      return reply;
    },
    type(value: string) {
      sent.type = value;
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    headers(values: Record<string, string>) {
      Object.assign(sent.headers, values);
      return reply;
    },
    send(body: string) {
      sent.body = JSON.parse(body) as ProblemBody;
      return reply;
    },
  };
  const host = {
    switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ id: 'req-42' }) }),
  } as unknown as ArgumentsHost;
  return { host, sent };
}

describe('ProblemDetailsFilter', () => {
  const filter = new ProblemDetailsFilter();

  it('answers an unexpected error with a bare 500 problem and logs its stack with the request id', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = exchange();
    filter.catch(new Error('secret detail at db.internal:3306'), host);
    expect(sent.status).toBe(500);
    expect(sent.type).toBe('application/problem+json');
    expect(sent.body).toEqual({
      type: 'https://problems.videos.example/error',
      title: 'Internal Server Error',
      status: 500,
      detail: 'The request could not be completed.',
    });
    const stack: unknown = expect.stringContaining('secret detail at db.internal:3306');
    expect(logged).toHaveBeenCalledWith({ reqId: 'req-42', err: stack }, 'unhandled error');
    logged.mockRestore();
  });

  it('passes a problem through with its headers', () => {
    const { host, sent } = exchange();
    filter.catch(ProblemException.unavailable('Search', 7), host);
    expect(sent.status).toBe(503);
    expect(sent.headers).toEqual({ 'Retry-After': '7' });
    expect(sent.body?.detail).toBe('Search is unavailable; try again shortly.');
  });

  it("turns Nest's own 4xx into a problem with its message", () => {
    const { host, sent } = exchange();
    filter.catch(new NotFoundException('Cannot GET /api/nope'), host);
    expect(sent.status).toBe(404);
    expect(sent.body).toMatchObject({ title: 'Not Found', detail: 'Cannot GET /api/nope' });
  });
});
