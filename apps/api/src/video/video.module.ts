import { Module } from '@nestjs/common';
import { VideoCommandService } from './video-command.service';
import { TrashController } from './trash.controller';
import { TrashOperationController } from './trash-operation.controller';
import { VideoController } from './video.controller';

@Module({
  controllers: [TrashController, TrashOperationController, VideoController],
  providers: [VideoCommandService],
})
export class VideoModule {}
