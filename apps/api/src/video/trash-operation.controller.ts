import { Controller } from '@nestjs/common';
import { json, problem, Route, unavailable } from '@app/shared/http/route-doc';
import { ValidatedInput } from '../common/zod-validation.pipe';
import type { TrashOperationEntity } from '@app/shared/trash/trash-operation.entity';
import { TrashOperationService } from '@app/shared/trash/trash-operation.service';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { operationProgress } from '../common/operation-progress';
import { AUTHOR_FORBIDDEN, settled } from '../common/outcome';
import {
  trashOperationIdParamsSchema,
  trashOperationSchema,
  type TrashOperationBody,
  type TrashOperationIdParams,
} from './trash.schema';

/** Following a trash operation (docs/contract.md §10.1): its owner or an admin, as for the trash. */
@Controller('api/trash-operations')
export class TrashOperationController {
  constructor(private readonly operations: TrashOperationService) {}

  @Route({
    method: 'get',
    path: ':operationId',
    operationId: 'getTrashOperation',
    tag: 'trash',
    summary: 'Follow a trash operation',
    description:
      'Its kind, progress (`done` of `total`, exact: committed with each batch), state and completion time. ' +
      'The trash owner or an admin only; kept `TRASH_OPERATION_RETENTION_DAYS` after its completion ' +
      '(docs/contract.md §10.1).',
    security: 'bearer',
    params: trashOperationIdParamsSchema,
    responses: {
      200: { description: 'the operation', json: json('TrashOperation', trashOperationSchema) },
      400: problem('invalid operationId'),
      403: problem('not the trash owner and not an admin'),
      404: problem('no such trash operation (or past its retention)'),
      503: unavailable('The database'),
    },
  })
  async read(
    @ValidatedInput({ params: trashOperationIdParamsSchema }) { params }: { params: TrashOperationIdParams },
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<TrashOperationBody> {
    const { operation } = settled(await this.operations.read(user, params.operationId), {
      notFound: 'No such trash operation.',
      forbidden: AUTHOR_FORBIDDEN,
    });
    return trashOperationBody(operation);
  }
}

function trashOperationBody(operation: TrashOperationEntity): TrashOperationBody {
  return {
    operationId: operation.id,
    kind: operation.kind,
    state: operation.state,
    ...operationProgress(operation),
  };
}
