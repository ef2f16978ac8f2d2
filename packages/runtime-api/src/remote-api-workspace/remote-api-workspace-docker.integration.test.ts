import { describeRemoteApiWorkspaceSuite } from './test-support/describe-remote-api-workspace-suite.js';

describeRemoteApiWorkspaceSuite('docker');
