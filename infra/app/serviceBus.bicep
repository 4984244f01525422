// Service Bus namespace and its queues. The queues come from the entity file (the official emulator's
// Config.json format): the same file our emulator loads, so local and Azure entities cannot drift apart.

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Namespace name.')
param name string

@description('Standard is enough for sessions and duplicate detection; Premium adds isolation and larger messages.')
@allowed([
  'Standard'
  'Premium'
])
param sku string = 'Standard'

@description('Messaging units when the SKU is Premium.')
@allowed([
  1
  2
  4
  8
  16
])
param premiumCapacity int = 1

@description('Maximum size of each queue in MB. The entity file cannot carry it (the emulator Config.json format has no such property), so it is set here; the values are the ones Standard accepts, Premium accepts them too.')
@allowed([
  1024
  2048
  3072
  4096
  5120
])
param maxQueueSizeInMegabytes int = 1024

@description('Disabled when the app reaches the namespace through its private endpoint only (VNET_ENABLED; Premium only).')
@allowed([
  'Enabled'
  'Disabled'
])
param publicNetworkAccess string = 'Enabled'

var entityFile = loadJsonContent('../servicebus.config.json')
// The file holds one namespace; its name only matters to the emulators.
var queues = entityFile.UserConfig.Namespaces[0].Queues

resource namespace 'Microsoft.ServiceBus/namespaces@2024-01-01' = {
  name: name
  location: location
  tags: tags
  sku: {
    name: sku
    tier: sku
    capacity: sku == 'Premium' ? premiumCapacity : null
  }
  properties: {
    // Entra ID only: no SAS keys can be used against this namespace.
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
    publicNetworkAccess: publicNetworkAccess
  }
}

// ISO 8601 durations pass through unchanged; forwarding is set only when the file names a target. The size is
// explicit so a queue nobody drains (order-events) has a known ceiling that its backlog alert is sized against.
resource queue 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' = [
  for q in queues: {
    parent: namespace
    name: q.Name
    properties: union(
      {
        requiresSession: q.Properties.RequiresSession
        requiresDuplicateDetection: q.Properties.RequiresDuplicateDetection
        duplicateDetectionHistoryTimeWindow: q.Properties.DuplicateDetectionHistoryTimeWindow
        lockDuration: q.Properties.LockDuration
        maxDeliveryCount: q.Properties.MaxDeliveryCount
        defaultMessageTimeToLive: q.Properties.DefaultMessageTimeToLive
        deadLetteringOnMessageExpiration: q.Properties.DeadLetteringOnMessageExpiration
        maxSizeInMegabytes: maxQueueSizeInMegabytes
      },
      empty(q.Properties.?ForwardTo ?? '') ? {} : { forwardTo: q.Properties.ForwardTo },
      empty(q.Properties.?ForwardDeadLetteredMessagesTo ?? '')
        ? {}
        : { forwardDeadLetteredMessagesTo: q.Properties.ForwardDeadLetteredMessagesTo },
      // Optional in the file (no queue sets it today): any() because the loaded file's type has no such key.
      empty(any(q.Properties).?AutoDeleteOnIdle ?? '') ? {} : { autoDeleteOnIdle: any(q.Properties).AutoDeleteOnIdle }
    )
  }
]

output name string = namespace.name
output id string = namespace.id
// serviceBusEndpoint is https://<name>.servicebus.windows.net:443/; the SDKs and triggers want the bare host.
output fullyQualifiedNamespace string = split(split(namespace.properties.serviceBusEndpoint, '//')[1], ':')[0]
output queueNames array = [for (q, i) in queues: queue[i].name]
