// The package ships no types: one function from a word to its Porter2 (English Snowball) stem.
declare module 'wink-porter2-stemmer' {
  function stem(word: string): string;
  export = stem;
}
