using System.Net;
using Microsoft.Azure.Cosmos;

namespace CosmosCompat;

/// <summary>
/// Bulk (<c>AllowBulkExecution</c>): concurrent point operations the SDK packs into HybridRow batch requests that are
/// not atomic, one per partition key range, each operation answered on its own.
/// </summary>
public sealed class BulkChecks(CosmosClient bulkClient, HttpClient admin, Checks checks, string databaseId)
{
    public async Task RunAsync()
    {
        var database = (await bulkClient.CreateDatabaseIfNotExistsAsync(databaseId)).Database;
        try
        {
            var items = (await database.CreateContainerIfNotExistsAsync("bulk", "/pk")).Container;
            var creates = Enumerable.Range(0, 300).Select(i => items.CreateItemAsync(new Doc { Id = $"bulk-{i}", Pk = $"p{i % 37}", N = i }, new PartitionKey($"p{i % 37}")));
            var bulkRequestsBefore = await BulkRequestsAsync();
            var created = await Task.WhenAll(creates);
            checks.Check(created.All(r => r.StatusCode == HttpStatusCode.Created), "bulk: 300 concurrent creates over 37 partition keys all answer 201");
            var bulkRequests = await BulkRequestsAsync() - bulkRequestsBefore;
            checks.Check(bulkRequests > 0 && bulkRequests < 300, $"bulk: they travel as bulk requests ({bulkRequests})");

            var mixed = new List<Task<HttpStatusCode>>
            {
                Status(() => items.CreateItemAsync(new Doc { Id = "bulk-0", Pk = "p0" }, new PartitionKey("p0"))),
                Status(() => items.ReadItemAsync<Doc>("bulk-1", new PartitionKey("p1"))),
                Status(() => items.ReadItemAsync<Doc>("missing", new PartitionKey("p2"))),
                Status(() => items.UpsertItemAsync(new Doc { Id = "bulk-3", Pk = "p3", N = -3 }, new PartitionKey("p3"))),
                Status(() => items.DeleteItemAsync<Doc>("bulk-4", new PartitionKey("p4"))),
            };
            var statuses = await Task.WhenAll(mixed);
            var expected = new[] { HttpStatusCode.Conflict, HttpStatusCode.OK, HttpStatusCode.NotFound, HttpStatusCode.OK, HttpStatusCode.NoContent };
            checks.Check(statuses.SequenceEqual(expected), $"bulk: each operation keeps its own status ({string.Join(", ", statuses.Select(s => (int)s))})");
            var upserted = await items.ReadItemAsync<Doc>("bulk-3", new PartitionKey("p3"));
            checks.Check(upserted.Resource.N == -3, "bulk: an upsert beside failing operations is applied");
        }
        finally
        {
            await database.DeleteAsync();
        }
    }

    /// <summary>Bulk requests the emulator has counted (its unsigned <c>/_emulator/counters</c> route).</summary>
    private async Task<int> BulkRequestsAsync()
    {
        using var counters = System.Text.Json.JsonDocument.Parse(await admin.GetStringAsync("_emulator/counters"));
        return counters.RootElement.TryGetProperty("bulk", out var n) ? n.GetInt32() : 0;
    }

    private static async Task<HttpStatusCode> Status<T>(Func<Task<ItemResponse<T>>> action)
    {
        try
        {
            return (await action()).StatusCode;
        }
        catch (CosmosException e)
        {
            return e.StatusCode;
        }
    }
}
