import { Module } from '@nestjs/common';
import { SynonymSetRepository } from '@app/shared/synonyms/synonym-set.repository';
import { CurrentSynonyms } from './current-synonyms';
import { SynonymsController } from './synonyms.controller';
import { SynonymsService } from './synonyms.service';

/** The search's synonym set: its routes, and the copy every search reads (`CurrentSynonyms`). */
@Module({
  controllers: [SynonymsController],
  providers: [SynonymSetRepository, CurrentSynonyms, SynonymsService],
  exports: [CurrentSynonyms],
})
export class SynonymsModule {}
