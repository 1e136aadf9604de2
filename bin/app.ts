import { createApp } from '../lib/cdk/team-messaging-stack.ts';

/** `cdk synth` / `cdk deploy` run this (see cdk.json); `-c dev=true` selects the disposable dev stack. */
createApp();
