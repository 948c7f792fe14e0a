import {settings} from '@oclif/core'

settings.enableAutoTranspile = false
