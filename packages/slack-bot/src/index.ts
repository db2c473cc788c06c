export * from './blocks/index.js';
export * from './store/index.js';
