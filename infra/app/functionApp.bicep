// Flex Consumption (FC1) plan and the Node 22 function app. Every connection is identity-based through the
// user-assigned identity; no setting carries a key or a secret connection string.

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Plan name.')
param planName string

@description('Function app name.')
param name string

@description('azd service name the app is tagged with, so `azd deploy` finds it.')
param serviceName string = 'api'

@description('Resource id of the user-assigned identity.')
param identityId string

@description('Client id of the user-assigned identity.')
param identityClientId string

@description('Storage account name used by the host.')
param storageAccountName string

@description('Blob container that receives the deployment package.')
param deploymentContainerName string

@description('Application Insights connection string (locates the endpoint; ingestion needs the identity).')
param applicationInsightsConnectionString string

@description('Service Bus namespace host name, e.g. sb-x.servicebus.windows.net.')
param serviceBusFullyQualifiedNamespace string

@description('Cosmos DB account endpoint.')
param cosmosEndpoint string

@description('Cosmos DB database name: pass the cosmos module output.')
param cosmosDatabaseName string

@description('Cosmos DB container name: pass the cosmos module output.')
param cosmosContainerName string

@description('Flex Consumption scale-out limit.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 40

@description('Flex Consumption instance size in MB.')
@allowed([
  512
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Subnet (delegated to Microsoft.App/environments) the app integrates with when VNET_ENABLED; empty: no VNet integration.')
param virtualNetworkSubnetId string = ''

@description('Overrides of host.json and app settings, merged last.')
param extraAppSettings object = {}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    name: 'FC1'
    tier: 'FlexConsumption'
  }
  properties: {
    reserved: true
  }
}

// The app derives the inbox TTL and its retry-budget check from the queues' delivery windows; reading them from the
// entity file (the same file that creates the queues) keeps the app and the broker in step.
var entityQueues = loadJsonContent('../servicebus.config.json').UserConfig.Namespaces[0].Queues
var ordersQueue = filter(entityQueues, q => q.Name == 'orders')[0].Properties
var ledgerQueue = filter(entityQueues, q => q.Name == 'ledger')[0].Properties

var identitySettings = {
  credential: 'managedidentity'
  clientId: identityClientId
}

var appSettings = union(
  {
    // Host storage through the identity (blob for leases and keys, queue/table for host internals).
    AzureWebJobsStorage__credential: identitySettings.credential
    AzureWebJobsStorage__clientId: identitySettings.clientId
    AzureWebJobsStorage__blobServiceUri: storage.properties.primaryEndpoints.blob
    AzureWebJobsStorage__queueServiceUri: storage.properties.primaryEndpoints.queue
    AzureWebJobsStorage__tableServiceUri: storage.properties.primaryEndpoints.table
    // Triggers and the app's own clients: the `ServiceBusConnection` / `CosmosConnection` prefixes (docs/architecture.md, "Names everyone shares").
    ServiceBusConnection__fullyQualifiedNamespace: serviceBusFullyQualifiedNamespace
    ServiceBusConnection__credential: identitySettings.credential
    ServiceBusConnection__clientId: identitySettings.clientId
    CosmosConnection__accountEndpoint: cosmosEndpoint
    CosmosConnection__credential: identitySettings.credential
    CosmosConnection__clientId: identitySettings.clientId
    // A user-assigned identity must be named for DefaultAzureCredential in the app's own SDK clients.
    AZURE_CLIENT_ID: identityClientId
    APPLICATIONINSIGHTS_CONNECTION_STRING: applicationInsightsConnectionString
    APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD;ClientId=${identityClientId}'
    // The names the cosmos module created (its outputs), never a second copy of them.
    COSMOS_DATABASE: cosmosDatabaseName
    COSMOS_CONTAINER: cosmosContainerName
    ORDERS_LOCK_DURATION: ordersQueue.LockDuration
    ORDERS_MAX_DELIVERY_COUNT: string(ordersQueue.MaxDeliveryCount)
    ORDERS_MESSAGE_TTL: ordersQueue.DefaultMessageTimeToLive
    LEDGER_LOCK_DURATION: ledgerQueue.LockDuration
  },
  extraAppSettings
)

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: name
  location: location
  tags: union(tags, { 'azd-service-name': serviceName })
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: { '${identityId}': {} }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Outbound traffic (Storage, Cosmos DB, Service Bus through their private endpoints; the internet through the NAT
    // gateway) leaves through the subnet. Inbound HTTP stays public, guarded by function keys.
    virtualNetworkSubnetId: empty(virtualNetworkSubnetId) ? null : virtualNetworkSubnetId
    // Key Vault references in the app settings (OUTBOX_WEBHOOK_SECRET) resolve with the app's identity.
    keyVaultReferenceIdentity: identityId
    siteConfig: {
      minTlsVersion: '1.2'
      ftpsState: 'Disabled'
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storage.properties.primaryEndpoints.blob}${deploymentContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identityId
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }

  resource settings 'config' = {
    name: 'appsettings'
    properties: appSettings
  }
}

// Publishing goes through Entra ID (azd uses the caller's token); basic-auth publishing credentials stay off.
resource ftpPolicy 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: functionApp
  name: 'ftp'
  properties: { allow: false }
}

resource scmPolicy 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: functionApp
  name: 'scm'
  properties: { allow: false }
}

output name string = functionApp.name
output id string = functionApp.id
output defaultHostName string = functionApp.properties.defaultHostName
