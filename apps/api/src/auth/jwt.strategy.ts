import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import type { AuthenticatedUser } from './authenticated-user';

/** Leeway for clocks that disagree a little between issuer and API. */
const CLOCK_TOLERANCE_SECONDS = 30;

interface TokenClaims {
  sub?: unknown;
  exp?: unknown;
  roles?: unknown;
}

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: config.JWT_SECRET ?? '',
      // An explicit allow-list: `none` and every algorithm not listed are refused.
      algorithms: ['HS256'],
      ignoreExpiration: false,
      ...(config.JWT_ISSUER ? { issuer: config.JWT_ISSUER } : {}),
      ...(config.JWT_AUDIENCE ? { audience: config.JWT_AUDIENCE } : {}),
      jsonWebTokenOptions: { clockTolerance: CLOCK_TOLERANCE_SECONDS },
    });
  }

  /** jsonwebtoken accepts a token without `exp`; this API does not. */
  validate(claims: TokenClaims): AuthenticatedUser | false {
    if (typeof claims.sub !== 'string' || claims.sub.length === 0 || claims.sub.length > 128) return false;
    if (typeof claims.exp !== 'number') return false;
    const roles = Array.isArray(claims.roles)
      ? claims.roles.filter((r): r is string => typeof r === 'string')
      : [];
    return { sub: claims.sub, roles };
  }
}
