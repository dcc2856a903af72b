export * from './credentials';
export * from './runner';
