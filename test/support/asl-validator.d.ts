// asl-validator 3 ships no types; this is the part the tests use.
declare module 'asl-validator' {
  const validate: (definition: unknown) => { isValid: boolean; errors: unknown[]; errorsText: () => string };
  export default validate;
}
