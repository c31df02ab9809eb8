import { Controller, Headers, Query, Res, UseGuards } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import type { BodyConfig } from '@app/shared/http-app';
import { ProblemException } from '@app/shared/http/problem';
import { json, problem, Route, unavailable } from '@app/shared/http/route-doc';
import { admitAdminBody, AdminsOnly } from '../auth/admins-only';
import { matchesWeakly, parseTagList, strongTag, type TagList } from '../common/entity-tags';
import { JsonBody } from '../common/json-body';
import { noQuery } from '../common/query-params';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { MAX_SYNONYMS_BODY_BYTES, synonymSetSchema, type SynonymSet } from './synonyms.schema';
import { synonymSetTag, SynonymsService } from './synonyms.service';

const SET = json('SynonymSet', synonymSetSchema);
const ETAG = {
  ETag: "the set's entity tag (strong): give it as `If-Match` to replace this set and no other",
};

/** A conditional header's list of entity tags, or a 400 naming the header. */
function tagList(name: string, header: string | undefined): TagList | undefined {
  if (header === undefined) return undefined;
  const list = parseTagList(header);
  if (!list) {
    throw ProblemException.badRequest([
      { name, reason: `${name} must be * or a list of quoted entity tags, as an ETag gives them` },
    ]);
  }
  return list;
}

/** The search's synonym set (docs/contract.md §7.3): admins only. */
@Controller('api/search')
@UseGuards(AdminsOnly)
export class SynonymsController {
  constructor(private readonly synonyms: SynonymsService) {}

  @Route({
    method: 'get',
    path: 'synonyms',
    operationId: 'getSynonyms',
    tag: 'search',
    summary: 'Read the synonym set',
    description:
      "The search's synonym rules as they were saved, with the set's `ETag`. With `If-None-Match` naming that " +
      'tag, 304 and no body. Admins only (docs/contract.md §7.3).',
    security: 'bearer',
    headers: {
      'If-None-Match': 'the `ETag` of the set the caller holds: 304 while it is still the saved one',
    },
    responses: {
      200: { description: 'the saved set', json: SET, headers: ETAG },
      304: { description: 'the set named by `If-None-Match` is still the saved one', headers: ETAG },
      400: problem(
        'a query parameter (this route takes none), or an `If-None-Match` that is no list of tags',
      ),
      403: problem('not an admin'),
      503: unavailable('The database'),
    },
  })
  async read(
    @Query(new ZodValidationPipe(noQuery)) _query: unknown,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SynonymSet | undefined> {
    const known = tagList('If-None-Match', ifNoneMatch);
    const set = await this.synonyms.read();
    const tag = synonymSetTag(set);
    void reply.header('ETag', strongTag(tag));
    if (known && matchesWeakly(known, tag)) {
      // Sets the code only; `void` because a Fastify reply is thenable.
      void reply.status(304);
      return undefined;
    }
    return { rules: set.rules };
  }

  @Route({
    method: 'put',
    path: 'synonyms',
    operationId: 'putSynonyms',
    tag: 'search',
    summary: 'Replace the synonym set',
    description:
      'Replaces the whole set; every search and suggestion uses it within 10 seconds on every API process, ' +
      'with no reindex, and after restarts. A rule that is not one is a 400 naming it and its index ' +
      '(`rules[3]`), and nothing is saved. With `If-Match` (the `ETag` of the set the change was made to), the ' +
      'set is replaced only if it is still that one, else 412; without it, the last save wins. The body is at ' +
      `most ${MAX_SYNONYMS_BODY_BYTES} bytes, read only once the caller is known to be an admin. Admins only ` +
      '(docs/contract.md §7.3).',
    security: 'bearer',
    headers: {
      'If-Match':
        'the `ETag` of the set this one replaces: 412, and nothing saved, if it is no longer the saved one',
    },
    body: SET,
    responses: {
      200: { description: 'the saved set, with its new `ETag`', json: SET, headers: ETAG },
      400: problem('a rule that is not one (`rules[<index>]`), a field the body does not take, or bad JSON'),
      403: problem('not an admin'),
      412: problem('`If-Match` names a set that is no longer the saved one: nothing was saved'),
      413: problem(`a body of more than ${MAX_SYNONYMS_BODY_BYTES} bytes, refused unread`),
      415: problem('a body not sent as `application/json`'),
      503: unavailable('The database'),
    },
  })
  @RouteConfig({ bodyLimit: MAX_SYNONYMS_BODY_BYTES, admitBody: admitAdminBody } satisfies BodyConfig)
  async replace(
    @JsonBody(synonymSetSchema) body: SynonymSet,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SynonymSet> {
    const saved = await this.synonyms.replace(body.rules, tagList('If-Match', ifMatch));
    if (!saved) {
      throw new ProblemException(
        412,
        'The synonym set was changed since the ETag given as If-Match: read it again (GET), then save. Nothing was saved.',
      );
    }
    void reply.header('ETag', strongTag(synonymSetTag(saved)));
    return { rules: saved.rules };
  }
}
