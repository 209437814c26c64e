// Deno sets import.meta.main for the entry module; under Node it is undefined (falsy).
interface ImportMeta {
  main?: boolean;
}
