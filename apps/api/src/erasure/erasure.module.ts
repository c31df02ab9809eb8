import { Module } from '@nestjs/common';
import { ErasureController } from './erasure.controller';

@Module({ controllers: [ErasureController] })
export class ErasureModule {}
