// The undici files undici-dispatchers.ts loads directly (see there); typed from undici's own types.
declare module 'undici/lib/api/index.js' {
  const api: object;
  export default api;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';

  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';

  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const AgentClass: typeof Agent;
  export default AgentClass;
}
