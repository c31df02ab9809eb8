import { HttpException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/** One bad parameter in a 400 answer. */
export interface ProblemFieldError {
  name: string;
  reason: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: ProblemFieldError[];
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const TYPES: Record<number, string> = {
  400: 'validation-error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  412: 'precondition-failed',
  413: 'content-too-large',
  415: 'unsupported-media-type',
  429: 'rate-limited',
  503: 'service-unavailable',
};

export function problemType(status: number): string {
  return `https://problems.videos.example/${TYPES[status] ?? 'error'}`;
}

export function problemBody(status: number, detail: string, errors?: ProblemFieldError[]): ProblemBody {
  return {
    type: problemType(status),
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    ...(errors ? { errors } : {}),
  };
}

/** Answers with a problem document, plus any headers (a challenge, `Retry-After`). */
export function sendProblem(
  reply: FastifyReply,
  body: ProblemBody,
  headers: Record<string, string | string[]> = {},
): FastifyReply {
  return reply
    .status(body.status)
    .headers(headers)
    .type('application/problem+json')
    .send(JSON.stringify(body));
}

/** An RFC 9457 problem, with optional response headers (WWW-Authenticate, Retry-After). */
export class ProblemException extends HttpException {
  constructor(
    status: number,
    detail: string,
    readonly errors?: ProblemFieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(problemBody(status, detail, errors), status);
  }

  /** The problem document this exception answers with. */
  get body(): ProblemBody {
    return this.getResponse() as ProblemBody;
  }

  /** A 400 naming each bad parameter in `errors`; `detail` sums them up in one sentence. */
  static badRequest(errors: ProblemFieldError[]): ProblemException {
    const reasons = errors.map((error) => error.reason).join('; ');
    return new ProblemException(400, `The request has invalid parameters: ${reasons}.`, errors);
  }

  static unavailable(what: string, retryAfterSeconds = 5): ProblemException {
    return new ProblemException(503, `${what} is unavailable; try again shortly.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}
