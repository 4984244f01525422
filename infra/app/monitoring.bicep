// Log Analytics workspace + workspace-based Application Insights with local (key) auth off:
// telemetry is accepted only from Entra ID identities holding Monitoring Metrics Publisher.

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Log Analytics workspace name.')
param logAnalyticsName string

@description('Application Insights component name.')
param applicationInsightsName string

@description('Days of log retention (30 is the free allowance).')
param retentionInDays int = 30

resource logAnalytics 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: logAnalyticsName
  location: location
  tags: tags
  properties: {
    sku: { name: 'PerGB2018' }
    retentionInDays: retentionInDays
  }
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: applicationInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'web'
    WorkspaceResourceId: logAnalytics.id
    // No instrumentation-key ingestion: the host and the app authenticate with the managed identity.
    DisableLocalAuth: true
  }
}

output applicationInsightsName string = applicationInsights.name
output applicationInsightsId string = applicationInsights.id
// The connection string only locates the ingestion endpoint; with local auth off it grants nothing by itself.
output applicationInsightsConnectionString string = applicationInsights.properties.ConnectionString
output logAnalyticsId string = logAnalytics.id
