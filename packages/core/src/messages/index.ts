export * from './apply-page.js';
export * from './cursor.js';
export * from './paging-error.js';
export * from './rounds-info.js';
