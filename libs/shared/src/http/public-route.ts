import { SetMetadata, type CustomDecorator } from '@nestjs/common';

/** Metadata key of `PublicRoute`. */
export const PUBLIC_ROUTE = 'publicRoute';

/**
 * Marks a controller (or one handler) as answering without a bearer token: health probes and
 * metrics scrapes. The API's guard authenticates every other route, so a new controller is
 * protected unless it says otherwise, and the decision follows the route the router matched,
 * never the raw path (which a client may percent-encode).
 */
export const PublicRoute = (): CustomDecorator<string> => SetMetadata(PUBLIC_ROUTE, true);
