// The function app's user-assigned identity: created before the app so role assignments can be granted
// in the same deployment, and named explicitly in every identity-based setting (AZURE_CLIENT_ID, __clientId).

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Identity name.')
param name string

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

output id string = identity.id
output name string = identity.name
output clientId string = identity.properties.clientId
output principalId string = identity.properties.principalId
