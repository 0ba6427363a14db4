// Work the page can wait for, done a slice at a time, so that none of it makes a long task at load.
//
// Items are queued from anywhere (an observer's callback, the start of the page) and handled later, in
// order, in tasks of their own: never in the caller's task (an observer's callback runs inside the
// browser's own rendering or inside a script of the theme's, whose task it would lengthen), and for at
// most BUDGET_MS at a time, after which the browser gets the main thread back (for input, a frame)
// before the next slice. scheduler.yield() where the browser has it (its continuation runs ahead of other
// queued tasks), else a task of its own through setTimeout.

const BUDGET_MS = 10;

/** @type {{ yield?: () => Promise<void> } | undefined} */
const scheduler = /** @type {any} */ (globalThis).scheduler;
/** @type {() => Promise<void>} */
const yieldToBrowser =
  typeof scheduler?.yield === "function"
    ? () => /** @type {() => Promise<void>} */ (scheduler.yield).call(scheduler)
    : () => new Promise((resume) => setTimeout(resume, 0));

/** A queue whose items `handle` takes one at a time, in slices of at most BUDGET_MS.
 * @template T */
export class Slices {
  /** @param {(item: T) => void} handle */
  constructor(handle) {
    this.handle = handle;
    /** @type {T[]} */
    this.items = [];
    this.running = false;
  }

  /** Queue items; they are handled in a later task. @param {T[]} items */
  add(...items) {
    this.items.push(...items);
    if (this.running || !this.items.length) return;
    this.running = true;
    this.run().catch((error) => {
      this.running = false;
      throw error;
    });
  }

  async run() {
    let next = 0;
    do {
      await yieldToBrowser();
      const end = performance.now() + BUDGET_MS;
      while (next < this.items.length && performance.now() < end) this.handle(this.items[next++]);
      if (next === this.items.length || next > 1000) {
        this.items.splice(0, next); // what is handled, let go of
        next = 0;
      }
    } while (this.items.length);
    this.running = false;
  }
}
