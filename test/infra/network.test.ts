import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BicepCompiler } from '../../scripts/infraBuild.js';
import { locateBicepCompiler, ofType, REPO_ROOT, single, snapshotMainBicep } from './armTemplate.js';
import type { DeploymentSnapshot, PredictedResource } from './armTemplate.js';

const mainBicep = join(REPO_ROOT, 'infra', 'main.bicep');
const compiler = locateBicepCompiler();

/** The three data services of the app: nothing of theirs may be reachable from the internet with VNET_ENABLED. */
const DATA_SERVICES = [
  'Microsoft.Storage/storageAccounts',
  'Microsoft.DocumentDB/databaseAccounts',
  'Microsoft.ServiceBus/namespaces',
] as const;

/** The sub-resources the app reaches, with the Private Link zone each resolves in. */
const ENDPOINTS = [
  {
    service: 'Microsoft.Storage/storageAccounts',
    groupId: 'blob',
    zone: /^\[format\('privatelink\.blob\.\{0\}', environment\(\)\.suffixes\.storage\)\]$/,
  },
  {
    service: 'Microsoft.Storage/storageAccounts',
    groupId: 'queue',
    zone: /^\[format\('privatelink\.queue\.\{0\}', environment\(\)\.suffixes\.storage\)\]$/,
  },
  {
    service: 'Microsoft.Storage/storageAccounts',
    groupId: 'table',
    zone: /^\[format\('privatelink\.table\.\{0\}', environment\(\)\.suffixes\.storage\)\]$/,
  },
  { service: 'Microsoft.DocumentDB/databaseAccounts', groupId: 'Sql', zone: /^privatelink\.documents\.azure\.com$/ },
  { service: 'Microsoft.ServiceBus/namespaces', groupId: 'namespace', zone: /^privatelink\.servicebus\.windows\.net$/ },
] as const;

const BASE = { environmentName: 'ci', location: 'westeurope' } as const;

function subnet(vnet: PredictedResource, name: string): Record<string, unknown> {
  const subnets = (vnet.properties?.subnets ?? []) as { name: string; properties: Record<string, unknown> }[];
  const found = subnets.find((s) => s.name === name);
  if (!found) throw new Error(`no subnet ${name}`);
  return found.properties;
}

describe('main.parameters.json', () => {
  it('maps VNET_ENABLED (default false) and COSMOS_BACKUP_TIER (default Continuous7Days) from the azd environment', () => {
    const file = JSON.parse(readFileSync(join(REPO_ROOT, 'infra', 'main.parameters.json'), 'utf8')) as {
      parameters: Record<string, { value: string }>;
    };
    expect(file.parameters.vnetEnabled?.value).toBe('${VNET_ENABLED=false}');
    expect(file.parameters.cosmosBackupTier?.value).toBe('${COSMOS_BACKUP_TIER=Continuous7Days}');
  });
});

describe.skipIf(!compiler || compiler.kind === 'az')('VNET_ENABLED (bicep snapshot)', () => {
  let off: DeploymentSnapshot;
  let on: DeploymentSnapshot;
  let large: DeploymentSnapshot;

  beforeAll(() => {
    const c = compiler as BicepCompiler;
    off = snapshotMainBicep(c, mainBicep, { ...BASE, serviceBusSku: 'Premium' });
    on = snapshotMainBicep(c, mainBicep, { ...BASE, serviceBusSku: 'Premium', vnetEnabled: true });
    large = snapshotMainBicep(c, mainBicep, {
      ...BASE,
      serviceBusSku: 'Premium',
      vnetEnabled: true,
      maximumInstanceCount: 1000,
    });
  }, 300_000);

  it('evaluates both settings without a diagnostic', () => {
    expect(off.diagnostics).toEqual([]);
    expect(on.diagnostics).toEqual([]);
  });

  it('off (the default): no network resource, every data service public as before, no VNet integration', () => {
    expect(off.predictedResources.filter((r) => r.type.startsWith('Microsoft.Network/'))).toEqual([]);
    for (const type of DATA_SERVICES) expect(single(off, type).properties?.publicNetworkAccess, type).toBe('Enabled');
    expect(single(off, 'Microsoft.Storage/storageAccounts').properties?.networkAcls).toEqual({
      defaultAction: 'Allow',
      bypass: 'AzureServices',
    });
    expect(single(off, 'Microsoft.Web/sites').properties?.virtualNetworkSubnetId ?? null).toBeNull();
    expect(off.outputs).toMatchObject({ VNET_ENABLED: false, AZURE_VNET_NAME: '' });
  });

  it('on: Storage, Cosmos DB and Service Bus refuse public traffic', () => {
    for (const type of DATA_SERVICES) expect(single(on, type).properties?.publicNetworkAccess, type).toBe('Disabled');
    // Storage also denies by default with no trusted-service exception: the private endpoints are the only way in.
    expect(single(on, 'Microsoft.Storage/storageAccounts').properties?.networkAcls).toEqual({
      defaultAction: 'Deny',
      bypass: 'None',
    });
    // No data service is left without the endpoints it needs (Storage: blob, queue and table for the host).
    const connected = ofType(on, 'Microsoft.Network/privateEndpoints').flatMap((e) => {
      const connections = (e.properties?.privateLinkServiceConnections ?? []) as {
        properties: { privateLinkServiceId: string; groupIds: string[] };
      }[];
      return connections.flatMap((c) => c.properties.groupIds.map((g) => `${c.properties.privateLinkServiceId} ${g}`));
    });
    for (const { service, groupId } of ENDPOINTS)
      expect(connected, `${service} ${groupId}`).toContain(`${single(on, service).id} ${groupId}`);
    expect(connected).toHaveLength(ENDPOINTS.length);
  });

  it('on: each endpoint publishes its address in the Private Link zone of its sub-resource, and every zone is linked to the VNet', () => {
    const vnet = single(on, 'Microsoft.Network/virtualNetworks');
    const zones = ofType(on, 'Microsoft.Network/privateDnsZones');
    expect(zones).toHaveLength(ENDPOINTS.length);
    const links = ofType(on, 'Microsoft.Network/privateDnsZones/virtualNetworkLinks');
    expect(links).toHaveLength(zones.length);
    for (const link of links)
      expect(link.properties).toMatchObject({ registrationEnabled: false, virtualNetwork: { id: vnet.id } });

    const endpointSubnet = `${vnet.id}/subnets/private-endpoints`;
    for (const { service, groupId, zone } of ENDPOINTS) {
      const endpoint = ofType(on, 'Microsoft.Network/privateEndpoints').find((e) =>
        JSON.stringify(e.properties).includes(`"groupIds":["${groupId}"]`),
      );
      expect(endpoint, `${service} ${groupId}`).toBeDefined();
      expect(endpoint?.properties?.subnet).toEqual({ id: endpointSubnet });
      const group = ofType(on, 'Microsoft.Network/privateEndpoints/privateDnsZoneGroups').find(
        (g) => g.name === `${endpoint?.name}/default`,
      );
      const zoneId = String(
        (group?.properties?.privateDnsZoneConfigs as { properties: { privateDnsZoneId: string } }[] | undefined)?.[0]
          ?.properties.privateDnsZoneId,
      );
      const zoneName = zones.map((z) => z.name).find((name) => zone.test(name));
      expect(zoneName, `${groupId} zone`).toBeDefined();
      expect(zoneId, `${groupId} zone group`).toContain(String(zoneName).replace(/^\[|\]$/g, ''));
    }
  });

  it('on: the app integrates through a subnet delegated to Microsoft.App/environments, whose outbound goes through a NAT gateway', () => {
    const vnet = single(on, 'Microsoft.Network/virtualNetworks');
    expect(single(on, 'Microsoft.Web/sites').properties?.virtualNetworkSubnetId).toBe(`${vnet.id}/subnets/app`);
    const app = subnet(vnet, 'app');
    expect(app.delegations).toEqual([
      { name: 'flex-consumption', properties: { serviceName: 'Microsoft.App/environments' } },
    ]);
    const nat = single(on, 'Microsoft.Network/natGateways');
    expect(app.natGateway).toEqual({ id: nat.id });
    expect(nat.sku).toEqual({ name: 'Standard' });
    const ip = single(on, 'Microsoft.Network/publicIPAddresses');
    expect(ip).toMatchObject({ sku: { name: 'Standard' }, properties: { publicIPAllocationMethod: 'Static' } });
    expect(nat.properties?.publicIpAddresses).toEqual([{ id: ip.id }]);
    // No implicit internet access from either subnet: only the NAT gateway's address leaves the network.
    expect(app.defaultOutboundAccess).toBe(false);
    expect(subnet(vnet, 'private-endpoints')).toMatchObject({
      defaultOutboundAccess: false,
      privateEndpointNetworkPolicies: 'Disabled',
    });
    expect(on.outputs).toMatchObject({ VNET_ENABLED: true, AZURE_VNET_NAME: vnet.name });
  });

  it.each([
    ['40 instances', () => on, '10.0.8.0/25'],
    ['1000 instances', () => large, '10.0.8.0/21'],
  ])(
    'sizes the app subnet for maximumInstanceCount (%s: two addresses per instance plus the five Azure reserves)',
    (_label, snapshot, prefix) => {
      const vnet = single(snapshot(), 'Microsoft.Network/virtualNetworks');
      expect(subnet(vnet, 'app').addressPrefix).toBe(prefix);
      expect(subnet(vnet, 'private-endpoints').addressPrefix).toBe('10.0.0.0/24');
      const [, bits = '32'] = prefix.split('/');
      const instances = snapshot() === large ? 1000 : 40;
      expect(2 ** (32 - Number(bits))).toBeGreaterThanOrEqual(2 * instances + 5);
      // And no larger than needed: half the subnet would not do.
      expect(2 ** (31 - Number(bits))).toBeLessThan(2 * instances + 5);
    },
  );

  it('refuses VNET_ENABLED with a Standard namespace at provisioning, saying that private endpoints need Premium', () => {
    expect(() => snapshotMainBicep(compiler as BicepCompiler, mainBicep, { ...BASE, vnetEnabled: true })).toThrow(
      /VNET_ENABLED=true needs SERVICEBUS_SKU=Premium: Service Bus private endpoints exist only on the Premium tier/,
    );
  }, 120_000);
});
