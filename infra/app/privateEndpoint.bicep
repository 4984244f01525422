// One private endpoint for one sub-resource of a service (a storage account's blob, Cosmos DB's Sql, a Service Bus
// namespace), with a DNS zone group so its private address is published in the zone the network links: clients inside
// the network resolve the service's usual host name to that address, and nothing in the app changes.

@description('Azure region (the virtual network\'s).')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Private endpoint name.')
param name string

@description('Subnet the endpoint takes its address from.')
param subnetId string

@description('Resource id of the service the endpoint connects to.')
param serviceId string

@description('Sub-resource (group id) of the service: blob, queue, table, Sql, namespace.')
param groupId string

@description('Resource id of the private DNS zone that resolves that sub-resource.')
param privateDnsZoneId string

resource endpoint 'Microsoft.Network/privateEndpoints@2024-05-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    subnet: { id: subnetId }
    customNetworkInterfaceName: '${name}-nic'
    privateLinkServiceConnections: [
      {
        name: name
        properties: {
          privateLinkServiceId: serviceId
          groupIds: [groupId]
        }
      }
    ]
  }

  // The platform writes and removes the endpoint's A records in the zone as its address changes.
  resource zoneGroup 'privateDnsZoneGroups' = {
    name: 'default'
    properties: {
      privateDnsZoneConfigs: [
        {
          name: replace(last(split(privateDnsZoneId, '/')), '.', '-')
          properties: { privateDnsZoneId: privateDnsZoneId }
        }
      ]
    }
  }
}

output id string = endpoint.id
output name string = endpoint.name
