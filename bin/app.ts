import { createApp } from '../lib/cdk/stack.ts';

/** `cdk synth` / `cdk deploy` run this (see cdk.json); `-c dev=true` selects the disposable dev stack. */
createApp();
