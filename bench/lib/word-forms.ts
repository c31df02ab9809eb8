/**
 * Other forms of a word, by endings written from each language's grammar: two words are forms of
 * each other when cutting one ending of the table off each leaves the same stem. Knows nothing of
 * the search's stemmer, so the queries built with it judge that stemmer rather than repeat it.
 */
import { inflections } from './language-queries';

/** The inflecting languages of the catalogue other than English (ISO 639-3). */
export type InflectingLanguage = 'spa' | 'rus' | 'fra' | 'por' | 'ita' | 'deu' | 'pol';

/**
 * Each language's common inflectional endings (and a few close derivations, such as an action noun
 * from its verb), separated by spaces: nouns' and adjectives' number, gender and case, verbs'
 * infinitive, participles and frequent persons. The bare stem is a form too.
 */
export const ENDINGS: Record<InflectingLanguage, string> = {
  spa: 's es a o as os e ar er ir ando iendo ado ada ados adas ido ida idos idas amos emos imos an en ía ían ción ciones ación aciones mente dor dora dores ble bles al ales idad idades',
  por: 's es a o as os e ar er ir ando endo indo ado ada ados adas ido ida idos idas amos emos imos am em ão ões ção ções ação ações mente dor dora dores vel veis al ais idade idades',
  ita: 'a e i o are ere ire ato ata ati ate ito ita iti ite uto uta uti ute ando endo iamo ano ono zione zioni azione azioni mente tore tori trice bile bili ità',
  fra: 's x e es er ez é ée és ées ant ent ons ais ait ir it is ion ions ation ations eur eurs euse euses ement ements if ive ifs ives ique iques ité ités able ables al aux ale ales el elle els elles',
  deu: 'e en er ern es s n em et t te ten tet ung ungen ig ige igen iger isch ische ischen lich liche lichen heit keit ieren iert ierte ierung ierungen',
  pol: 'a e i y o u ą ę em om ami ach ów ie ej ego emu ym ymi ych im imi ich owa owe owy owej owego owych ać ić yć ować uje ują anie ania aniu aniem enie enia eniu eniem ność ności ość ości',
  rus: 'а я ы и у ю е о ой ей ом ем ам ям ами ями ах ях ов ев ий ый ая яя ое ее ые ие ого его ому ему ым им ую юю ых их ыми ими ать ять ить еть ет ют ут ит ат ят ал ала али ил ила или ение ения ений ением ению ание ания аний анием анию ость ости ностью ный ная ное ные ного ной ным ных ться ся',
};

/**
 * Each language's articles, prepositions, pronouns, conjunctions and adverbs of four letters or
 * more: no query rests on them, and their other forms (`sobre` and `sobres`, `della` and `delle`)
 * are other words.
 */
export const FUNCTION_WORDS: Record<InflectingLanguage, string> = {
  spa: 'sobre entre desde hasta hacia según contra durante mediante nuestro nuestra nuestros nuestras cuando donde porque aunque mientras todos todas otros otras mismo misma mismos estos estas aquel cuáles quién algunos algunas mucho muchos mucha muchas también siempre nunca para como cómo pero sino esta este esto unos unas todo toda cada tras fuera dentro ahora',
  por: 'sobre entre desde contra durante nosso nossa nossos nossas quando porque porquê embora todos todas outros outras outro outra mesmo mesma estes estas esses essas aquele aquela muito muitos muita muitas também sempre nunca depois antes para como mais pelo pela seus suas isso isto esta este todo toda cada pode fora dentro agora',
  ita: 'della delle dello degli dalla dalle dallo dagli nella nelle nello negli sulla sulle sullo sugli alla alle allo agli quando perché perche tutti tutte altro altri altra altre stesso stessa questo questa questi queste quello quella quelli quelle molto molti molta molte anche sempre senza verso contro come dove sono però cosa ogni fuori dentro tutto tutta',
  fra: 'comment comme votre notre leurs entre depuis pendant contre avant après toutes autres autre cette celle celles celui quand pourquoi parce quelle quelles quels quelque quelques même mêmes aussi toujours jamais avec dans pour sans sous vers chez tout mais donc elle nous vous sont être faire quoi',
  deu: 'einer einen einem eines keine keinen keiner durch gegen unter zwischen wieder warum dieser diese dieses diesen diesem jeder jede jedes alles allen aller anderen andere anderer ihrer ihren unser unsere unseren nicht schon immer damit eine dass oder aber wird sind auch noch nach über beim ohne mehr statt',
  pol: 'czyli przez przed między dlaczego kiedy gdzie który która które których którym jakie wszystko wszyscy wszystkie swoje swoich naszych nasze nasza bardzo zawsze jeszcze tylko jest oraz albo przy jako może jego tego tych sobie nich',
  rus: 'через чтобы вместе вместо после перед между около против когда потому почему который которая которое которые которых которым которого этого этому этими этих такой такая такие такого всего всегда также очень можно нужно только если чего того тоже даже этом свой быть есть',
};

/** English inflectional endings. */
const ENGLISH_INFLECTION = 's es ed ing e d er ers ies ied y';

/** English derivational endings: nouns, adjectives and adverbs made from a word. */
const ENGLISH_DERIVATION =
  'ment ments ion ions ation ations ity ities al ally ize izes ized izing ization ise ised ising isation ic ics ical ically ive ively ivity or ors able ability ness ly ful ance ence ant ent ism ist ists ure ures';

/** A stem this short, or this small a share of a word, ties words that are not forms of each other. */
export const MIN_STEM = 5;
const MIN_STEM_SHARE = 0.6;

/**
 * For each of `words` that has other forms among them by `endings` (separated by spaces), those
 * forms, sorted: a common stem of MIN_STEM letters or more, at least MIN_STEM_SHARE of the shorter
 * word.
 */
export function formsAmong(words: Iterable<string>, endings: string): Map<string, string[]> {
  const cut = ['', ...endings.split(' ')];
  const byStem = new Map<string, Set<string>>();
  for (const word of words)
    for (const ending of cut) {
      if (!word.endsWith(ending)) continue;
      const stem = word.slice(0, word.length - ending.length);
      if (stem.length >= MIN_STEM) byStem.set(stem, (byStem.get(stem) ?? new Set()).add(word));
    }
  const forms = new Map<string, Set<string>>();
  for (const [stem, sharing] of byStem)
    for (const word of sharing)
      for (const form of sharing)
        if (form !== word && stem.length >= MIN_STEM_SHARE * Math.min(word.length, form.length))
          forms.set(word, (forms.get(word) ?? new Set()).add(form));
  return new Map([...forms].map(([word, found]) => [word, [...found].sort()]));
}

/**
 * For each English word of `words` that has derivationally related words among them (`founding`
 * and `foundation`, `deploy` and `deployment`), those words: forms by the derivational endings
 * that neither the inflectional endings nor the 'other inflection' kind's rules give.
 */
export function derivationsAmong(words: Iterable<string>): Map<string, string[]> {
  const all = [...words];
  const inflected = formsAmong(all, ENGLISH_INFLECTION);
  const derived = new Map<string, string[]>();
  for (const [word, forms] of formsAmong(all, `${ENGLISH_INFLECTION} ${ENGLISH_DERIVATION}`)) {
    const plain = new Set([...(inflected.get(word) ?? []), ...inflections(word)]);
    const only = forms.filter((form) => !plain.has(form));
    if (only.length > 0) derived.set(word, only);
  }
  return derived;
}
