/**
 * The composition's one seam for a real cycle between two parts: created empty before both, handed to the
 * first as something to ask later, and bound once when the second exists. Used before it is bound it
 * throws, naming what it holds; `peek` is for a reader that has a meaning for "not yet" (a metrics scrape).
 */
export class LateBound<T> {
  #bound: { readonly value: T } | undefined;

  constructor(private readonly what: string) {}

  bind(value: T): void {
    if (this.#bound) throw new Error(`${this.what} is bound once`);
    this.#bound = { value };
  }

  get(): T {
    if (!this.#bound) throw new Error(`${this.what} was asked for before the composition bound it`);
    return this.#bound.value;
  }

  peek(): T | undefined {
    return this.#bound?.value;
  }
}
