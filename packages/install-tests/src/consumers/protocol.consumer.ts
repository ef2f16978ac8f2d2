import { type BashEvent, bashEventFromWire, newHexId } from '@agent-workspace/protocol';

const event: BashEvent = bashEventFromWire({ kind: 'BashCommand', id: newHexId() });
export const kind: string = event.kind;
