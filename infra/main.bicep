// Ledger Convoy on Azure: a Flex Consumption function app with a user-assigned identity, Service Bus queues
// from the entity file, Cosmos DB, monitoring and alerts. No keys anywhere: every local auth method is off.
targetScope = 'subscription'

@minLength(1)
@maxLength(64)
@description('azd environment name; prefixes the resource group and seeds resource names.')
param environmentName string

@minLength(1)
@description('Primary region for all resources.')
@metadata({ azd: { type: 'location' } })
param location string

@description('Object id of the deploying user or CI principal, granted data access for the CLI; empty skips it.')
param principalId string = ''

@description('Type of principalId.')
@allowed([
  'User'
  'ServicePrincipal'
])
param principalType string = 'User'

@description('E-mail address for alerts; empty creates the action group without receivers.')
param alertEmail string = ''

@description('Service Bus tier: Standard supports sessions and duplicate detection at the lowest base cost.')
@allowed([
  'Standard'
  'Premium'
])
param serviceBusSku string = 'Standard'

@description('Maximum size of each Service Bus queue in MB (not part of the entity file).')
@allowed([
  1024
  2048
  3072
  4096
  5120
])
param serviceBusQueueMaxSizeInMegabytes int = 1024

@description('Active messages on order-events (kept until their TTL, since nothing in the app consumes them) above which an alert fires.')
@minValue(1)
param orderEventsBacklogThreshold int = 100000

@description('Cosmos DB capacity: Serverless has no idle cost; Provisioned uses autoscale throughput.')
@allowed([
  'Serverless'
  'Provisioned'
])
param cosmosCapacityMode string = 'Serverless'

@description('Autoscale maximum RU/s when cosmosCapacityMode is Provisioned.')
@minValue(1000)
param cosmosAutoscaleMaxThroughput int = 1000

@description('host.json extensions.serviceBus.maxConcurrentSessions: orders processed in parallel per instance.')
@minValue(1)
param maxConcurrentSessions int = 8

@description('host.json extensions.serviceBus.maxConcurrentCalls: ledgers split in parallel per instance.')
@minValue(1)
param maxConcurrentCalls int = 16

@description('host.json extensions.serviceBus.sessionIdleTimeout: how long an idle session is held (hh:mm:ss).')
param sessionIdleTimeout string = '00:00:01'

@description('host.json extensions.serviceBus.maxAutoLockRenewalDuration (hh:mm:ss).')
param maxAutoLockRenewalDuration string = '00:05:00'

@description('Age after which a parked gap raises GapTooOld (ISO 8601 duration).')
param gapAlertAge string = 'PT15M'

@description('How long a gap stays quiet after its GapTooOld while its first missing sequence is unchanged (ISO 8601 duration).')
param gapAlertRepeat string = 'PT1H'

@description('When the outbox hold timer first releases a new hold; doubles after each failed release (ISO 8601 duration).')
param outboxHoldRetryFirst string = 'PT1M'

@description('Longest delay between two releases of an outbox hold (ISO 8601 duration, not below outboxHoldRetryFirst).')
param outboxHoldRetryMax string = 'PT1H'

@description('Where the outbox relay also POSTs every order event (OUTBOX_WEBHOOK_URL); empty: no webhook.')
param outboxWebhookUrl string = ''

@description('Key Vault secret URI (https://<vault>.vault.azure.net/secrets/<name>) of the webhook signing secret (OUTBOX_WEBHOOK_SECRET, "whsec_" + base64), read through a Key Vault reference with the app identity; empty: unsigned POSTs.')
param outboxWebhookSecretUri string = ''

@description('Flex Consumption scale-out limit.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 40

var abbrs = loadJsonContent('abbreviations.json')
// Stable per subscription, environment and region, so names are unique yet re-deployments update in place.
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = { 'azd-env-name': environmentName }
var functionAppName = '${abbrs.webSitesFunctions}api-${resourceToken}'
var deploymentContainerName = 'app-package-${take(functionAppName, 32)}-${take(resourceToken, 7)}'

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: '${abbrs.resourcesResourceGroups}${environmentName}'
  location: location
  tags: tags
}

module identity 'app/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.managedIdentityUserAssignedIdentities}api-${resourceToken}'
  }
}

module monitoring 'app/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    location: location
    tags: tags
    logAnalyticsName: '${abbrs.operationalInsightsWorkspaces}${resourceToken}'
    applicationInsightsName: '${abbrs.insightsComponents}${resourceToken}'
  }
}

module storage 'app/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.storageStorageAccounts}${resourceToken}'
    deploymentContainerName: deploymentContainerName
  }
}

module serviceBus 'app/serviceBus.bicep' = {
  name: 'serviceBus'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.serviceBusNamespaces}${resourceToken}'
    sku: serviceBusSku
    maxQueueSizeInMegabytes: serviceBusQueueMaxSizeInMegabytes
  }
}

module cosmos 'app/cosmos.bicep' = {
  name: 'cosmos'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.documentDBDatabaseAccounts}${resourceToken}'
    capacityMode: cosmosCapacityMode
    autoscaleMaxThroughput: cosmosAutoscaleMaxThroughput
  }
}

module functionApp 'app/functionApp.bicep' = {
  name: 'functionApp'
  scope: rg
  params: {
    location: location
    tags: tags
    planName: '${abbrs.webServerFarms}${resourceToken}'
    name: functionAppName
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerName: storage.outputs.deploymentContainerName
    applicationInsightsConnectionString: monitoring.outputs.applicationInsightsConnectionString
    serviceBusFullyQualifiedNamespace: serviceBus.outputs.fullyQualifiedNamespace
    cosmosEndpoint: cosmos.outputs.endpoint
    cosmosDatabaseName: cosmos.outputs.databaseName
    cosmosContainerName: cosmos.outputs.containerName
    maximumInstanceCount: maximumInstanceCount
    extraAppSettings: union({
      // host.json tuning without a redeploy of the code: the host reads AzureFunctionsJobHost__* over host.json.
      AzureFunctionsJobHost__extensions__serviceBus__maxConcurrentSessions: string(maxConcurrentSessions)
      AzureFunctionsJobHost__extensions__serviceBus__maxConcurrentCalls: string(maxConcurrentCalls)
      AzureFunctionsJobHost__extensions__serviceBus__sessionIdleTimeout: sessionIdleTimeout
      AzureFunctionsJobHost__extensions__serviceBus__maxAutoLockRenewalDuration: maxAutoLockRenewalDuration
      GAP_ALERT_AGE: gapAlertAge
      GAP_ALERT_REPEAT: gapAlertRepeat
      OUTBOX_HOLD_RETRY_FIRST: outboxHoldRetryFirst
      OUTBOX_HOLD_RETRY_MAX: outboxHoldRetryMax
    },
    empty(outboxWebhookUrl) ? {} : { OUTBOX_WEBHOOK_URL: outboxWebhookUrl },
    // Never the secret itself in the template or the deployment: a reference the platform resolves with the identity.
    empty(outboxWebhookSecretUri) ? {} : { OUTBOX_WEBHOOK_SECRET: '@Microsoft.KeyVault(SecretUri=${outboxWebhookSecretUri})' })
  }
}

module rbac 'app/rbac.bicep' = {
  name: 'rbac'
  scope: rg
  params: {
    appPrincipalId: identity.outputs.principalId
    userPrincipalId: principalId
    userPrincipalType: principalType
    storageAccountName: storage.outputs.name
    serviceBusNamespaceName: serviceBus.outputs.name
    cosmosAccountName: cosmos.outputs.name
    cosmosDatabaseName: cosmos.outputs.databaseName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
}

module alerts 'app/alerts.bicep' = {
  name: 'alerts'
  scope: rg
  params: {
    location: location
    tags: tags
    actionGroupName: '${abbrs.insightsActionGroups}${resourceToken}'
    alertNamePrefix: '${abbrs.insightsMetricAlerts}${resourceToken}-'
    alertEmail: alertEmail
    serviceBusNamespaceName: serviceBus.outputs.name
    eventQueueBacklogThreshold: orderEventsBacklogThreshold
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
}

// azd writes these to .azure/<env>/.env; names match the app settings of docs/architecture.md, "Names everyone shares".
output AZURE_LOCATION string = location
output AZURE_TENANT_ID string = tenant().tenantId
output AZURE_RESOURCE_GROUP string = rg.name
output AZURE_CLIENT_ID string = identity.outputs.clientId
output AZURE_FUNCTION_APP_NAME string = functionApp.outputs.name
output AZURE_FUNCTION_APP_URL string = 'https://${functionApp.outputs.defaultHostName}'
output SERVICEBUS_FULLY_QUALIFIED_NAMESPACE string = serviceBus.outputs.fullyQualifiedNamespace
output SERVICEBUS_QUEUES array = serviceBus.outputs.queueNames
output COSMOS_ENDPOINT string = cosmos.outputs.endpoint
output COSMOS_DATABASE string = cosmos.outputs.databaseName
output COSMOS_CONTAINER string = cosmos.outputs.containerName
output APPLICATIONINSIGHTS_CONNECTION_STRING string = monitoring.outputs.applicationInsightsConnectionString
// Identity-based connection settings for a local run against Azure (the developer's own credential).
output ServiceBusConnection__fullyQualifiedNamespace string = serviceBus.outputs.fullyQualifiedNamespace
output CosmosConnection__accountEndpoint string = cosmos.outputs.endpoint
