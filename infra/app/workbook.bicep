// The operators' workbook: over a chosen time range, what the local console shows (entries applied per minute, dead
// letters by reason and queue, outbox holds and relay lag, the session backlog of `orders`) plus what only Azure knows
// (Cosmos DB request units and throttling, function failures). Its definition is workbook.json, the portal's own
// format, so it can be edited in the portal and pasted back; resource ids are placeholders filled in here.

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Workbook display name.')
param displayName string = 'Ledger Convoy operations'

@description('Application Insights component: the app\'s telemetry (customMetrics, traces, requests, exceptions).')
param applicationInsightsId string

@description('Log Analytics workspace: the resource logs of the diagnostic settings (CDB* tables).')
param logAnalyticsId string

@description('Service Bus namespace: its platform metrics (ActiveMessages, DeadletteredMessages, ThrottledRequests).')
param serviceBusId string

var placeholders = {
  APPLICATION_INSIGHTS_ID: applicationInsightsId
  LOG_ANALYTICS_ID: logAnalyticsId
  SERVICE_BUS_ID: serviceBusId
}
var definition = reduce(items(placeholders), loadTextContent('workbook.json'), (text, p) => replace(text, '__${p.key}__', p.value))

resource workbook 'Microsoft.Insights/workbooks@2023-06-01' = {
  // A workbook's name must be a GUID: stable per resource group, so a re-deployment updates it in place.
  name: guid(resourceGroup().id, 'ledger-convoy-operations')
  location: location
  tags: tags
  kind: 'shared'
  properties: {
    displayName: displayName
    category: 'workbook'
    sourceId: applicationInsightsId
    serializedData: definition
    version: 'Notebook/1.0'
  }
}

output id string = workbook.id
output name string = workbook.name
