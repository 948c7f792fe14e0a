#!/usr/bin/env -S node --import tsx
// Runs the CLI from src/ without a build (development only).
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
