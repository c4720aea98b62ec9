// Loaded `async` before the page's main bundle: starts the engine worker (which
// fetches and compiles the wasm) while the browser is still parsing the editor code.
import { bootWorker } from './engine.js';

bootWorker();
