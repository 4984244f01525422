// Resource logs and platform metrics of Service Bus, Cosmos DB, Storage and the function app, sent to the Log Analytics
// workspace in resource-specific (Dedicated) tables: typed columns, per-table retention and plans, and the queries
// docs/azure.md ("Diagnostics") lists. The categories are the ones that answer the first questions: which queue is
// throttled, which partition is hot, what a request cost, why a function failed.

@description('Log Analytics workspace that receives everything.')
param logAnalyticsId string

@description('Diagnostic setting name (the same on every resource).')
param settingName string = 'to-log-analytics'

@description('Service Bus namespace.')
param serviceBusNamespaceName string

@description('Cosmos DB account.')
param cosmosAccountName string

@description('Storage account used by the Functions host.')
param storageAccountName string

@description('Function app.')
param functionAppName string

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource cosmos 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName

  resource blob 'blobServices' existing = {
    name: 'default'
  }

  resource queue 'queueServices' existing = {
    name: 'default'
  }

  resource table 'tableServices' existing = {
    name: 'default'
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' existing = {
  name: functionAppName
}

// All Service Bus log categories: OperationalLogs (entity changes), DiagnosticErrorLogs (client errors, throttling and
// quota errors per entity), RuntimeAuditLogs and ApplicationMetricsLogs (Premium), VNetAndIPFilteringLogs (connections
// the network rules refused). The group keeps the setting valid on both tiers. AllMetrics keeps the namespace
// metrics (ThrottledRequests, ServerErrors, …) for log queries; their EntityName split lives in the metrics store.
resource serviceBusDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: settingName
  scope: serviceBus
  properties: {
    workspaceId: logAnalyticsId
    logAnalyticsDestinationType: 'Dedicated'
    logs: [{ categoryGroup: 'allLogs', enabled: true }]
    metrics: [{ category: 'AllMetrics', enabled: true }]
  }
}

// DataPlaneRequests: every request with its RequestCharge and StatusCode (429 = throttled), i.e. what a request cost;
// PartitionKeyRUConsumption: RUs per logical partition key, i.e. which partition (order) is hot;
// PartitionKeyStatistics: the largest partition keys; QueryRuntimeStatistics: query shapes (text obfuscated);
// ControlPlaneRequests: account, role-assignment and restore operations.
resource cosmosDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: settingName
  scope: cosmos
  properties: {
    workspaceId: logAnalyticsId
    logAnalyticsDestinationType: 'Dedicated'
    logs: [
      for category in [
        'DataPlaneRequests'
        'PartitionKeyRUConsumption'
        'PartitionKeyStatistics'
        'QueryRuntimeStatistics'
        'ControlPlaneRequests'
      ]: { category: category, enabled: true }
    ]
    metrics: [{ category: 'Requests', enabled: true }]
  }
}

// Storage logs are per service: the host's blob leases and keys, its internal queues and tables. StorageRead/Write/Delete
// carry StatusText (e.g. ServerBusy, a throttled request), the caller's identity and the latency of each request.
var storageServiceLogs = {
  workspaceId: logAnalyticsId
  logAnalyticsDestinationType: 'Dedicated'
  logs: [
    { category: 'StorageRead', enabled: true }
    { category: 'StorageWrite', enabled: true }
    { category: 'StorageDelete', enabled: true }
  ]
  metrics: [{ category: 'Transaction', enabled: true }]
}

resource storageDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: settingName
  scope: storage
  properties: {
    workspaceId: logAnalyticsId
    logAnalyticsDestinationType: 'Dedicated'
    metrics: [{ category: 'Transaction', enabled: true }]
  }
}

resource blobDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: settingName
  scope: storage::blob
  properties: storageServiceLogs
}

resource queueDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: settingName
  scope: storage::queue
  properties: storageServiceLogs
}

resource tableDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: settingName
  scope: storage::table
  properties: storageServiceLogs
}

// FunctionAppLogs: the host's own log lines per invocation (start, failure, its exception), next to Application Insights.
resource functionAppDiagnostics 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = {
  name: settingName
  scope: functionApp
  properties: {
    workspaceId: logAnalyticsId
    logAnalyticsDestinationType: 'Dedicated'
    logs: [{ category: 'FunctionAppLogs', enabled: true }]
    metrics: [{ category: 'AllMetrics', enabled: true }]
  }
}
