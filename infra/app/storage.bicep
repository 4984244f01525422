// Storage for the Functions host (AzureWebJobsStorage: timer leases, host keys) and the Flex Consumption
// deployment package container. Shared keys are off: everything goes through the managed identity.

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Storage account name (3-24 lowercase letters and digits).')
@minLength(3)
@maxLength(24)
param name string

@description('Blob container that receives the deployment package.')
param deploymentContainerName string

@description('Disabled when the app reaches the account through private endpoints only (VNET_ENABLED).')
@allowed([
  'Enabled'
  'Disabled'
])
param publicNetworkAccess string = 'Enabled'

var isPrivate = publicNetworkAccess == 'Disabled'

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: { name: 'Standard_LRS' }
  properties: {
    accessTier: 'Hot'
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    allowCrossTenantReplication: false
    defaultToOAuthAuthentication: true
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: publicNetworkAccess
    // Without VNET_ENABLED the Flex Consumption app reaches storage over the public endpoint; with it only through the
    // blob, queue and table private endpoints, and no exception for trusted services either.
    networkAcls: isPrivate
      ? {
          defaultAction: 'Deny'
          bypass: 'None'
        }
      : {
          defaultAction: 'Allow'
          bypass: 'AzureServices'
        }
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: { publicAccess: 'None' }
}

output name string = storage.name
output id string = storage.id
output blobEndpoint string = storage.properties.primaryEndpoints.blob
output queueEndpoint string = storage.properties.primaryEndpoints.queue
output tableEndpoint string = storage.properties.primaryEndpoints.table
output deploymentContainerName string = deploymentContainer.name
