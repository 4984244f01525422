// Every role assignment of the deployment, least privilege first. Names are deterministic guid()s of
// (scope, principal, role) so re-running a deployment never duplicates an assignment.

@description('Principal id of the function app identity.')
param appPrincipalId string

@description('Principal id of the deploying user or CI principal; empty grants nothing.')
param userPrincipalId string = ''

@description('Principal type of userPrincipalId.')
@allowed([
  'User'
  'ServicePrincipal'
])
param userPrincipalType string = 'User'

@description('Storage account used by the Functions host.')
param storageAccountName string

@description('Service Bus namespace.')
param serviceBusNamespaceName string

@description('The order-events topic the outbox relay publishes to.')
param eventTopicName string

@description('Cosmos DB account.')
param cosmosAccountName string

@description('Cosmos DB database the data-plane roles are scoped to.')
param cosmosDatabaseName string

@description('Application Insights component.')
param applicationInsightsName string

// Built-in role definition ids (the same in every tenant).
var roles = {
  serviceBusDataOwner: '090c5cfd-751d-490a-894a-3ce6f1109419'
  serviceBusDataReceiver: '4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0'
  serviceBusDataSender: '69a216fc-b8fb-44d8-bc22-1f3c2cd27a39'
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b'
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb'
  // Cosmos DB data-plane role, assigned through sqlRoleAssignments (Azure RBAC roles do not reach the data plane).
  cosmosDataContributor: '00000000-0000-0000-0000-000000000002'
}

// Queue-scoped Service Bus rights of the app: each queue gets only the direction the code uses on it.
// Data Owner is withheld on purpose: the trigger's scale monitor then falls back to peeking for queue length.
var appQueueRoles = [
  // ledger splitter trigger: receive, complete, dead-letter a bad ledger.
  { queue: 'ledger', role: roles.serviceBusDataReceiver }
  // POST /api/ledgers enqueues ledgers.
  { queue: 'ledger', role: roles.serviceBusDataSender }
  // order processor session trigger: accept sessions, receive, complete, abandon, dead-letter.
  { queue: 'orders', role: roles.serviceBusDataReceiver }
  // the ledger splitter fans entries out into `orders`.
  { queue: 'orders', role: roles.serviceBusDataSender }
]

// Storage rights the Functions host needs with identity-based AzureWebJobsStorage on Flex Consumption.
var appStorageRoles = [
  // deployment package container, host keys and timer/singleton blob leases (leases need Owner-level blob rights).
  roles.storageBlobDataOwner
  // host-internal queues (e.g. blob trigger receipts); harmless when unused, required once a queue-based feature is on.
  roles.storageQueueDataContributor
  // host-internal tables used by some extensions and diagnostics.
  roles.storageTableDataContributor
]

var grantUser = !empty(userPrincipalId)

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource queues 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' existing = [
  for item in appQueueRoles: {
    parent: serviceBus
    name: item.queue
  }
]

resource eventTopic 'Microsoft.ServiceBus/namespaces/topics@2024-01-01' existing = {
  parent: serviceBus
  name: eventTopicName
}

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource appQueueAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (item, i) in appQueueRoles: {
    name: guid(queues[i].id, appPrincipalId, item.role)
    scope: queues[i]
    properties: {
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', item.role)
    }
  }
]

// The outbox relay publishes order events to the topic (and `convoy outbox retry` re-sends held ones); the app reads
// none of its subscriptions: they belong to the downstreams, each with its own identity and rights.
resource appTopicAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(eventTopic.id, appPrincipalId, roles.serviceBusDataSender)
  scope: eventTopic
  properties: {
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.serviceBusDataSender)
  }
}

resource appStorageAssignments 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for role in appStorageRoles: {
    name: guid(storage.id, appPrincipalId, role)
    scope: storage
    properties: {
      principalId: appPrincipalId
      principalType: 'ServicePrincipal'
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', role)
    }
  }
]

// Application Insights has local auth off: telemetry from the host and the app must be signed by the identity.
resource appTelemetryAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, appPrincipalId, roles.monitoringMetricsPublisher)
  scope: applicationInsights
  properties: {
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher)
  }
}

// The processor reads and writes orders, inbox and outbox documents, and the outbox relay's trigger its change feed,
// holds and the `leases` container, all in `convoy` only (no account-wide scope).
resource appCosmosAssignment 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = {
  parent: cosmos
  name: guid(cosmos.id, appPrincipalId, roles.cosmosDataContributor)
  properties: {
    principalId: appPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${roles.cosmosDataContributor}'
    scope: '${cosmos.id}/dbs/${cosmosDatabaseName}'
  }
}

// The deploying user runs the CLI and `npm start -- --no-emulators` against Azure: `convoy sessions` reads queue
// runtime properties and `convoy dlq purge/resubmit` receives and sends on every queue, which needs Data Owner.
resource userServiceBusAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (grantUser) {
  name: guid(serviceBus.id, userPrincipalId, roles.serviceBusDataOwner)
  scope: serviceBus
  properties: {
    principalId: userPrincipalId
    principalType: userPrincipalType
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.serviceBusDataOwner)
  }
}

// The deploying user inspects orders and runs the app locally against the real database.
resource userCosmosAssignment 'Microsoft.DocumentDB/databaseAccounts/sqlRoleAssignments@2024-11-15' = if (grantUser) {
  parent: cosmos
  name: guid(cosmos.id, userPrincipalId, roles.cosmosDataContributor)
  properties: {
    principalId: userPrincipalId
    roleDefinitionId: '${cosmos.id}/sqlRoleDefinitions/${roles.cosmosDataContributor}'
    scope: '${cosmos.id}/dbs/${cosmosDatabaseName}'
  }
}

// A local run against Azure exports telemetry to the same component, which accepts only Entra ID callers.
resource userTelemetryAssignment 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (grantUser) {
  name: guid(applicationInsights.id, userPrincipalId, roles.monitoringMetricsPublisher)
  scope: applicationInsights
  properties: {
    principalId: userPrincipalId
    principalType: userPrincipalType
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roles.monitoringMetricsPublisher)
  }
}
