// Cosmos DB for NoSQL: database `convoy`, container `orders` partitioned on /orderId so an order's document, its
// transactions and its entries' records share one partition (one transactional batch per entry).

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Account name.')
param name string

@description('Serverless bills per request (no idle cost); Provisioned uses autoscale throughput on the database.')
@allowed([
  'Serverless'
  'Provisioned'
])
param capacityMode string = 'Serverless'

@description('Autoscale maximum RU/s for the database when capacityMode is Provisioned.')
@minValue(1000)
param autoscaleMaxThroughput int = 1000

@description('Continuous backup tier: point-in-time restore over the last 7 days (free) or 30 days (billed per GB).')
@allowed([
  'Continuous7Days'
  'Continuous30Days'
])
param backupTier string = 'Continuous7Days'

@description('Disabled when the app reaches the account through its private endpoint only (VNET_ENABLED).')
@allowed([
  'Enabled'
  'Disabled'
])
param publicNetworkAccess string = 'Enabled'

@description('Database name (docs/architecture.md, "Names everyone shares").')
param databaseName string = 'convoy'

@description('Container name (docs/architecture.md, "Names everyone shares").')
param containerName string = 'orders'

resource account 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' = {
  name: name
  location: location
  tags: tags
  kind: 'GlobalDocumentDB'
  properties: {
    databaseAccountOfferType: 'Standard'
    consistencyPolicy: { defaultConsistencyLevel: 'Session' }
    locations: [
      {
        locationName: location
        failoverPriority: 0
        isZoneRedundant: false
      }
    ]
    capabilities: capacityMode == 'Serverless' ? [{ name: 'EnableServerless' }] : []
    // Entra ID only for data; metadata changes only through ARM (this template), never from the app.
    disableLocalAuth: true
    disableKeyBasedMetadataWriteAccess: true
    minimalTlsVersion: 'Tls12'
    publicNetworkAccess: publicNetworkAccess
    // The order state, the entries' records and their events live here: continuous backup allows a restore to any second of the
    // tier's window (a new account; docs/azure.md, "Point-in-time restore").
    backupPolicy: {
      type: 'Continuous'
      continuousModeProperties: { tier: backupTier }
    }
  }
}

resource database 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases@2024-11-15' = {
  parent: account
  name: databaseName
  properties: {
    resource: { id: databaseName }
    options: capacityMode == 'Serverless' ? {} : { autoscaleSettings: { maxThroughput: autoscaleMaxThroughput } }
  }
}

resource container 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = {
  parent: database
  name: containerName
  properties: {
    resource: {
      id: containerName
      partitionKey: {
        paths: ['/orderId']
        kind: 'Hash'
        version: 2
      }
      // TTL on, no default expiry: no document of ours carries a `ttl` today (every entry's record is kept for good,
      // docs/architecture.md, "Retention"); on, so a later retention needs no container change.
      defaultTtl: -1
      // Index only what the app's queries filter or sort on (docs/architecture.md, "Indexing"): every write is charged
      // for each indexed path, and the stored events (an applied entry's `event`) are never queried.
      indexingPolicy: {
        indexingMode: 'consistent'
        automatic: true
        includedPaths: [
          { path: '/docType/?' } // every query: which kind of document
          { path: '/status/?' } // an entry's record: applied, parked or rejected (CLI, console, chaos)
          { path: '/entryId/?' } // convoy dlq resubmit: the record of a rejected entry
          { path: '/addedSequence/?' } // GET view: the transactions ORDER BY c.addedSequence
          { path: '/sequence/?' } // outbox hold release: the applied entry records above its cursor ORDER BY c.sequence
          { path: '/updatedAt/?' } // console: recent orders ORDER BY c.updatedAt
          { path: '/orderId/?' } // console: orders and holds ORDER BY c.orderId, paged after the last one
          { path: '/rejected/[]/alerted/?' } // gap monitor: orders owing a ParkedEntryRejected alert
        ]
        excludedPaths: [
          { path: '/*' }
          { path: '/"_etag"/?' }
        ]
      }
    }
  }
}

// The outbox relay's change-feed leases (the Cosmos DB trigger's lease container): partitioned on /id, as the
// change feed processor requires, no TTL. The trigger does not create it (createLeaseContainerIfNotExists off).
resource leases 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-11-15' = {
  parent: database
  name: 'leases'
  properties: {
    resource: {
      id: 'leases'
      partitionKey: {
        paths: ['/id']
        kind: 'Hash'
        version: 2
      }
    }
  }
}

output name string = account.name
output id string = account.id
output endpoint string = account.properties.documentEndpoint
output databaseName string = database.name
output containerName string = container.name
output leaseContainerName string = leases.name
