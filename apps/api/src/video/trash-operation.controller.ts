import { Controller, Get } from '@nestjs/common';
import { ValidatedInput } from '../common/zod-validation.pipe';
import type { TrashOperationEntity } from '@app/shared/trash/trash-operation.entity';
import { TrashOperationService } from '@app/shared/trash/trash-operation.service';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { CurrentUser } from '../auth/current-user.decorator';
import { operationProgress } from '../common/operation-progress';
import { AUTHOR_FORBIDDEN, settled } from '../common/outcome';
import {
  trashOperationIdParamsSchema,
  type TrashOperationBody,
  type TrashOperationIdParams,
} from './trash.schema';

/** Following a trash operation (docs/contract.md §10.1): its owner or an admin, as for the trash. */
@Controller('api/trash-operations')
export class TrashOperationController {
  constructor(private readonly operations: TrashOperationService) {}

  @Get(':operationId')
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
