// Ledger Convoy on Azure: a Flex Consumption function app with a user-assigned identity, Service Bus queues and
// the order-events topic from the entity file, Cosmos DB with continuous backup, monitoring, diagnostics, a
// workbook and alerts. No keys anywhere: every local auth method is off. vnetEnabled puts Storage, Cosmos DB and
// Service Bus behind private endpoints in a virtual network the app integrates with (docs/azure.md).
targetScope = 'subscription'

import { eventSubscription } from 'app/serviceBus.bicep'

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

@description('Maximum size of each Service Bus queue and of the order-events topic in MB (not part of the entity file).')
@allowed([
  1024
  2048
  3072
  4096
  5120
])
param serviceBusQueueMaxSizeInMegabytes int = 1024

@description('Active messages on the order-events topic (its subscriptions\' copies, kept until read or expired) above which an alert fires; about a tenth of a 1 GB topic.')
@minValue(1)
param orderEventsBacklogThreshold int = 100000

@description('Subscriptions of the order-events topic, one per downstream (name, optional SQL filter on sys.Label = the CloudEvents type). The default, "all", takes every event so nothing is lost before the first downstream subscribes; a deployment that names its own downstreams may leave it out. Keep infra/servicebus.config.json\'s subscriptions the same for local runs.')
param orderEventSubscriptions eventSubscription[] = [
  {
    name: 'all'
    defaultMessageTimeToLive: 'P1D'
    deadLetteringOnMessageExpiration: false
    lockDuration: 'PT1M'
    maxDeliveryCount: 10
  }
]

@description('Cosmos DB capacity: Serverless has no idle cost; Provisioned uses autoscale throughput.')
@allowed([
  'Serverless'
  'Provisioned'
])
param cosmosCapacityMode string = 'Serverless'

@description('Autoscale maximum RU/s when cosmosCapacityMode is Provisioned. Default: what Service Bus can feed the processor at about 18.5 RU per entry, 6,000 with Standard and 25,000 with Premium (one messaging unit) (infra/README.md, "Staying inside the Cosmos DB budget").')
@minValue(1000)
param cosmosAutoscaleMaxThroughput int = (vnetEnabled || serviceBusSku == 'Premium') ? 25000 : 6000

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
param outboxHoldRetryMax string = 'PT5M'

@description('Where the outbox relay also POSTs every order event (OUTBOX_WEBHOOK_URL); empty: no webhook.')
param outboxWebhookUrl string = ''

@description('Key Vault secret URI (https://<vault>.vault.azure.net/secrets/<name>) of the webhook signing secret (OUTBOX_WEBHOOK_SECRET, "whsec_" + base64), read through a Key Vault reference with the app identity; empty: unsigned POSTs.')
param outboxWebhookSecretUri string = ''

@description('Flex Consumption scale-out limit.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 40

@description('VNET_ENABLED: a virtual network with private endpoints for Storage, Cosmos DB and Service Bus (publicNetworkAccess Disabled on each), VNet integration of the app and a NAT gateway for its outbound traffic. Needs serviceBusSku Premium.')
param vnetEnabled bool = false

@description('Cosmos DB continuous backup tier: point-in-time restore over 7 days (no charge) or 30 days (billed per GB).')
@allowed([
  'Continuous7Days'
  'Continuous30Days'
])
param cosmosBackupTier string = 'Continuous7Days'

var abbrs = loadJsonContent('abbreviations.json')
// Stable per subscription, environment and region, so names are unique yet re-deployments update in place.
var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
var tags = { 'azd-env-name': environmentName }
var functionAppName = '${abbrs.webSitesFunctions}api-${resourceToken}'
var deploymentContainerName = 'app-package-${take(functionAppName, 32)}-${take(resourceToken, 7)}'
var publicNetworkAccess = vnetEnabled ? 'Disabled' : 'Enabled'
// Service Bus private endpoints exist on Premium only, and a namespace cannot change tier in place: refuse the
// combination before anything is created rather than leave a public namespace behind a private network.
var serviceBusSkuChecked = vnetEnabled && serviceBusSku != 'Premium'
  ? fail('VNET_ENABLED=true needs SERVICEBUS_SKU=Premium: Service Bus private endpoints exist only on the Premium tier (about US$680 a month per messaging unit; see docs/azure.md), and a Standard namespace cannot be changed to Premium in place. Run `azd env set SERVICEBUS_SKU Premium` (a new environment, or delete the Standard namespace first), or set VNET_ENABLED=false.')
  : serviceBusSku

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
    publicNetworkAccess: publicNetworkAccess
  }
}

module serviceBus 'app/serviceBus.bicep' = {
  name: 'serviceBus'
  scope: rg
  params: {
    location: location
    tags: tags
    name: '${abbrs.serviceBusNamespaces}${resourceToken}'
    sku: serviceBusSkuChecked
    maxQueueSizeInMegabytes: serviceBusQueueMaxSizeInMegabytes
    eventSubscriptions: orderEventSubscriptions
    publicNetworkAccess: publicNetworkAccess
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
    backupTier: cosmosBackupTier
    publicNetworkAccess: publicNetworkAccess
  }
}

module network 'app/network.bicep' = if (vnetEnabled) {
  name: 'network'
  scope: rg
  params: {
    location: location
    tags: tags
    vnetName: '${abbrs.networkVirtualNetworks}${resourceToken}'
    nsgName: '${abbrs.networkNetworkSecurityGroups}${resourceToken}'
    natGatewayName: '${abbrs.networkNatGateways}${resourceToken}'
    publicIpName: '${abbrs.networkPublicIPAddresses}nat-${resourceToken}'
    maximumInstanceCount: maximumInstanceCount
  }
}

// The sub-resources the app reaches: the host's blob (package, leases, keys), queue and table services; Cosmos DB's
// NoSQL (Sql) endpoint; the Service Bus namespace. `zone` is the key of the network module's zoneIds.
var privateEndpoints = vnetEnabled
  ? [
      { name: 'blob', service: 'storage', groupId: 'blob', zone: 'blob' }
      { name: 'queue', service: 'storage', groupId: 'queue', zone: 'queue' }
      { name: 'table', service: 'storage', groupId: 'table', zone: 'table' }
      { name: 'cosmos', service: 'cosmos', groupId: 'Sql', zone: 'cosmosSql' }
      { name: 'servicebus', service: 'serviceBus', groupId: 'namespace', zone: 'serviceBus' }
    ]
  : []

module privateEndpoint 'app/privateEndpoint.bicep' = [
  for pe in privateEndpoints: {
    name: 'privateEndpoint-${pe.name}'
    scope: rg
    params: {
      location: location
      tags: tags
      name: '${abbrs.networkPrivateEndpoints}${pe.name}-${resourceToken}'
      subnetId: network!.outputs.privateEndpointsSubnetId
      serviceId: {
        storage: storage.outputs.id
        cosmos: cosmos.outputs.id
        serviceBus: serviceBus.outputs.id
      }[pe.service]
      groupId: pe.groupId
      privateDnsZoneId: network!.outputs.zoneIds[pe.zone]
    }
  }
]

module functionApp 'app/functionApp.bicep' = {
  name: 'functionApp'
  scope: rg
  // With VNET_ENABLED the host can reach its storage only once the endpoints and their DNS records exist.
  dependsOn: [privateEndpoint]
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
    virtualNetworkSubnetId: vnetEnabled ? network!.outputs.appSubnetId : ''
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
    eventTopicName: serviceBus.outputs.topicName
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
    cosmosAccountName: cosmos.outputs.name
    eventTopic: serviceBus.outputs.topicName
    eventTopicBacklogThreshold: orderEventsBacklogThreshold
    applicationInsightsName: monitoring.outputs.applicationInsightsName
  }
}

module diagnostics 'app/diagnostics.bicep' = {
  name: 'diagnostics'
  scope: rg
  params: {
    logAnalyticsId: monitoring.outputs.logAnalyticsId
    serviceBusNamespaceName: serviceBus.outputs.name
    cosmosAccountName: cosmos.outputs.name
    storageAccountName: storage.outputs.name
    functionAppName: functionApp.outputs.name
  }
}

module workbook 'app/workbook.bicep' = {
  name: 'workbook'
  scope: rg
  params: {
    location: location
    tags: tags
    applicationInsightsId: monitoring.outputs.applicationInsightsId
    logAnalyticsId: monitoring.outputs.logAnalyticsId
    serviceBusId: serviceBus.outputs.id
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
output SERVICEBUS_TOPIC string = serviceBus.outputs.topicName
output SERVICEBUS_TOPIC_SUBSCRIPTIONS array = serviceBus.outputs.subscriptionNames
output COSMOS_ENDPOINT string = cosmos.outputs.endpoint
output COSMOS_DATABASE string = cosmos.outputs.databaseName
output COSMOS_CONTAINER string = cosmos.outputs.containerName
output APPLICATIONINSIGHTS_CONNECTION_STRING string = monitoring.outputs.applicationInsightsConnectionString
// Identity-based connection settings for a local run against Azure (the developer's own credential).
output ServiceBusConnection__fullyQualifiedNamespace string = serviceBus.outputs.fullyQualifiedNamespace
output CosmosConnection__accountEndpoint string = cosmos.outputs.endpoint
output VNET_ENABLED bool = vnetEnabled
output AZURE_VNET_NAME string = vnetEnabled ? network!.outputs.vnetName : ''
output AZURE_WORKBOOK_ID string = workbook.outputs.id
