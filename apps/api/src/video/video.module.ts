import { Module } from '@nestjs/common';
import { VideoCommandService } from './video-command.service';
import { VideoController } from './video.controller';

@Module({
  controllers: [VideoController],
  providers: [VideoCommandService],
})
export class VideoModule {}
