// The private network of VNET_ENABLED: a virtual network with one subnet for the Flex Consumption app's VNet
// integration and one for private endpoints, a NAT gateway for the app's outbound traffic (the webhook,
// Application Insights ingestion), and the private DNS zones that resolve Storage, Cosmos DB and Service Bus to their
// private endpoints inside the network.

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Virtual network name.')
param vnetName string

@description('Network security group name (one group, on both subnets).')
param nsgName string

@description('NAT gateway name.')
param natGatewayName string

@description('Name of the NAT gateway public IP address.')
param publicIpName string

@description('Address space of the virtual network.')
param addressPrefix string = '10.0.0.0/16'

@description('Flex Consumption scale-out limit the app subnet is sized for.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 40

// Each Flex Consumption instance takes one address of the integration subnet. Twice the scale-out limit leaves room
// for instances that are being replaced (platform upgrades, recycling) while their successors start, plus the five
// addresses Azure reserves in every subnet: 40 instances get a /25, 1000 a /21.
var appAddressesNeeded = 2 * maximumInstanceCount + 5
// The smallest subnet that holds them: the first of these sizes that is large enough.
var subnetSizes = [
  { prefixLength: 28, addresses: 16 }
  { prefixLength: 27, addresses: 32 }
  { prefixLength: 26, addresses: 64 }
  { prefixLength: 25, addresses: 128 }
  { prefixLength: 24, addresses: 256 }
  { prefixLength: 23, addresses: 512 }
  { prefixLength: 22, addresses: 1024 }
  { prefixLength: 21, addresses: 2048 }
]
var appPrefixLength = filter(subnetSizes, s => s.addresses >= appAddressesNeeded)[0].prefixLength
// A /24 for private endpoints (five endpoints need five addresses) at the start; the app subnet at the start of the
// second /21 (10.0.8.0), where every size from /28 to /21 fits without overlapping it.
var privateEndpointsPrefix = cidrSubnet(addressPrefix, 24, 0)
var appSubnetPrefix = cidrSubnet(cidrSubnet(addressPrefix, 21, 1), appPrefixLength, 0)

var privateEndpointsSubnetName = 'private-endpoints'
var appSubnetName = 'app'

// Private Link zone names per sub-resource, built from the cloud's own suffixes where Bicep knows them.
var storageSuffix = environment().suffixes.storage
var zoneNames = {
  blob: 'privatelink.blob.${storageSuffix}'
  queue: 'privatelink.queue.${storageSuffix}'
  table: 'privatelink.table.${storageSuffix}'
  cosmosSql: 'privatelink.documents.azure.com'
  serviceBus: 'privatelink.servicebus.windows.net'
}

// Default rules only (VNet-internal traffic and the load balancer in; internet out through the NAT gateway): the
// group exists so every subnet has one, which Azure Policy baselines ask for, and so rules can be added in one place.
resource nsg 'Microsoft.Network/networkSecurityGroups@2024-05-01' = {
  name: nsgName
  location: location
  tags: tags
  properties: {
    securityRules: []
  }
}

resource publicIp 'Microsoft.Network/publicIPAddresses@2024-05-01' = {
  name: publicIpName
  location: location
  tags: tags
  sku: { name: 'Standard' }
  properties: {
    publicIPAllocationMethod: 'Static'
    publicIPAddressVersion: 'IPv4'
  }
}

// New virtual networks give subnets no default outbound access: the app reaches the internet (the webhook, the
// Application Insights ingestion endpoint) only through this gateway, from one known address.
resource natGateway 'Microsoft.Network/natGateways@2024-05-01' = {
  name: natGatewayName
  location: location
  tags: tags
  sku: { name: 'Standard' }
  properties: {
    idleTimeoutInMinutes: 4
    publicIpAddresses: [{ id: publicIp.id }]
  }
}

resource vnet 'Microsoft.Network/virtualNetworks@2024-05-01' = {
  name: vnetName
  location: location
  tags: tags
  properties: {
    addressSpace: { addressPrefixes: [addressPrefix] }
    subnets: [
      {
        name: privateEndpointsSubnetName
        properties: {
          addressPrefix: privateEndpointsPrefix
          networkSecurityGroup: { id: nsg.id }
          privateEndpointNetworkPolicies: 'Disabled'
          defaultOutboundAccess: false
        }
      }
      {
        name: appSubnetName
        properties: {
          addressPrefix: appSubnetPrefix
          networkSecurityGroup: { id: nsg.id }
          natGateway: { id: natGateway.id }
          defaultOutboundAccess: false
          // Flex Consumption integrates through a subnet delegated to Container Apps environments.
          delegations: [
            {
              name: 'flex-consumption'
              properties: { serviceName: 'Microsoft.App/environments' }
            }
          ]
        }
      }
    ]
  }

  resource privateEndpointsSubnet 'subnets' existing = {
    name: privateEndpointsSubnetName
  }

  resource appSubnet 'subnets' existing = {
    name: appSubnetName
  }
}

resource zones 'Microsoft.Network/privateDnsZones@2024-06-01' = [
  for zone in items(zoneNames): {
    name: zone.value
    location: 'global'
    tags: tags
  }
]

// Without a link the zone answers nobody: the VNet's resolver must see it for the app to resolve private addresses.
resource zoneLinks 'Microsoft.Network/privateDnsZones/virtualNetworkLinks@2024-06-01' = [
  for (zone, i) in items(zoneNames): {
    parent: zones[i]
    name: '${vnetName}-link'
    location: 'global'
    tags: tags
    properties: {
      registrationEnabled: false
      virtualNetwork: { id: vnet.id }
    }
  }
]

output vnetId string = vnet.id
output vnetName string = vnet.name
output appSubnetId string = vnet::appSubnet.id
output appSubnetPrefix string = appSubnetPrefix
output privateEndpointsSubnetId string = vnet::privateEndpointsSubnet.id
output natPublicIpId string = publicIp.id
// Zone ids by the keys of zoneNames (blob, queue, table, cosmosSql, serviceBus), for the endpoints' zone groups.
output zoneIds object = toObject(items(zoneNames), z => z.key, z => resourceId('Microsoft.Network/privateDnsZones', z.value))
