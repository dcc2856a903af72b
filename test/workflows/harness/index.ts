export * from './credentials';
export * from './runner';
export * from './triggers';
