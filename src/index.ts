// Programmatic entry points of the package.
export * from './telegram/index.js'
