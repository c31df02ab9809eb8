import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody, ProblemException, sendProblem, type ProblemBody } from './problem';
import { isDependencyUnavailable } from './unavailable';

/** Every error leaves as application/problem+json; nothing internal is ever in the body. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problem');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    let body: ProblemBody;
    let headers: Record<string, string> = {};
    if (exception instanceof ProblemException) {
      body = exception.body;
      headers = exception.headers;
    } else if (isDependencyUnavailable(exception)) {
      this.logger.warn(
        `dependency unavailable: ${exception instanceof Error ? exception.message : String(exception)}`,
      );
      body = problemBody(503, 'A service this request needs is unavailable; try again shortly.');
      headers = { 'Retry-After': '5' };
    } else if (exception instanceof HttpException) {
      const status = exception.getStatus();
      body = problemBody(status, status >= 500 ? 'The request could not be completed.' : exception.message);
    } else {
      // With the request's id, so the stack can be found from the `request errored` line.
      const { id } = host.switchToHttp().getRequest<FastifyRequest>();
      this.logger.error(
        { reqId: id, err: exception instanceof Error ? exception.stack : String(exception) },
        'unhandled error',
      );
      body = problemBody(500, 'The request could not be completed.');
    }
    void sendProblem(reply, body, headers);
  }
}
