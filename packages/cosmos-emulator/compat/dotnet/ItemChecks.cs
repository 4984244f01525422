using System.Net;
using Microsoft.Azure.Cosmos;

namespace CosmosCompat;

/// <summary>Database, container and item checks: status codes, ETags, batches, TTL, queries and patch.</summary>
public sealed class ItemChecks(CosmosClient client, Checks checks, string databaseId)
{
    private static PartitionKey Pk(string value) => new(value);

    public async Task RunAsync()
    {
        // Create-if-not-exists: 201 the first time, 200 the second.
        var db1 = await client.CreateDatabaseIfNotExistsAsync(databaseId);
        var db2 = await client.CreateDatabaseIfNotExistsAsync(databaseId);
        checks.Check(db1.StatusCode == HttpStatusCode.Created && db2.StatusCode == HttpStatusCode.OK, $"database create-if-not-exists ({(int)db1.StatusCode}, {(int)db2.StatusCode})");
        var database = db1.Database;
        try
        {
            await this.RunInAsync(database);
        }
        finally
        {
            await database.DeleteAsync();
        }
    }

    private async Task RunInAsync(Database database)
    {
        var c1 = await database.CreateContainerIfNotExistsAsync("items", "/pk");
        var c2 = await database.CreateContainerIfNotExistsAsync("items", "/pk");
        checks.Check(c1.StatusCode == HttpStatusCode.Created && c2.StatusCode == HttpStatusCode.OK, $"container create-if-not-exists ({(int)c1.StatusCode}, {(int)c2.StatusCode})");
        var items = c1.Container;

        await this.PointOperationsAsync(items);
        await this.BatchesAsync(items);
        await this.PatchAsync(items);
        await this.QueriesAsync(items);
        await this.TtlAsync(database);
        await new ChangeFeedChecks(checks, database).RunAsync();
    }

    private async Task PointOperationsAsync(Container items)
    {
        var created = await items.CreateItemAsync(new Doc { Id = "a", Pk = "p1", N = 1 }, Pk("p1"));
        checks.Check(created.StatusCode == HttpStatusCode.Created && !string.IsNullOrEmpty(created.ETag), $"create answers 201 with an ETag ({(int)created.StatusCode})");
        await checks.ExpectStatusAsync(HttpStatusCode.Conflict, "create of a duplicate id", () => items.CreateItemAsync(new Doc { Id = "a", Pk = "p1" }, Pk("p1")));
        await checks.ExpectStatusAsync(HttpStatusCode.NotFound, "read of a missing item", () => items.ReadItemAsync<Doc>("missing", Pk("p1")));
        await checks.ExpectStatusAsync(HttpStatusCode.NotFound, "read in another partition", () => items.ReadItemAsync<Doc>("a", Pk("p2")));

        var read = await items.ReadItemAsync<Doc>("a", Pk("p1"));
        checks.Check(read.Resource.N == 1 && read.ETag == created.ETag, "read returns the item and its ETag");
        var replaced = await items.ReplaceItemAsync(new Doc { Id = "a", Pk = "p1", N = 2 }, "a", Pk("p1"), new ItemRequestOptions { IfMatchEtag = read.ETag });
        checks.Check(replaced.Resource.N == 2 && replaced.ETag != read.ETag, "replace with the current ETag");
        await checks.ExpectStatusAsync(HttpStatusCode.PreconditionFailed, "replace with a stale ETag", () =>
            items.ReplaceItemAsync(new Doc { Id = "a", Pk = "p1", N = 3 }, "a", Pk("p1"), new ItemRequestOptions { IfMatchEtag = read.ETag }));

        var upsertNew = await items.UpsertItemAsync(new Doc { Id = "u", Pk = "p1", N = 1 }, Pk("p1"));
        var upsertOld = await items.UpsertItemAsync(new Doc { Id = "u", Pk = "p1", N = 5 }, Pk("p1"));
        checks.Check(upsertNew.StatusCode == HttpStatusCode.Created && upsertOld.StatusCode == HttpStatusCode.OK && upsertOld.Resource.N == 5, $"upsert creates then replaces ({(int)upsertNew.StatusCode}, {(int)upsertOld.StatusCode})");

        // Names are signed as written (case and characters kept); the SDK escapes them in the URL.
        const string odd = "Odd id+with spaces & ünïcode";
        await items.CreateItemAsync(new Doc { Id = odd, Pk = "P 1/ä", N = 7 }, Pk("P 1/ä"));
        var oddRead = await items.ReadItemAsync<Doc>(odd, Pk("P 1/ä"));
        checks.Check(oddRead.Resource.Id == odd && oddRead.Resource.N == 7, "an id with spaces, '+', '&' and non-ASCII letters is written and read back");

        var deleted = await items.DeleteItemAsync<Doc>("u", Pk("p1"));
        checks.Check(deleted.StatusCode == HttpStatusCode.NoContent, $"delete answers 204 ({(int)deleted.StatusCode})");
        await checks.ExpectStatusAsync(HttpStatusCode.NotFound, "read after delete", () => items.ReadItemAsync<Doc>("u", Pk("p1")));
    }

    private async Task BatchesAsync(Container items)
    {
        await items.CreateItemAsync(new Doc { Id = "b-existing", Pk = "pb", N = 0 }, Pk("pb"));
        using (var ok = await items.CreateTransactionalBatch(Pk("pb"))
            .CreateItem(new Doc { Id = "b1", Pk = "pb", N = 1 })
            .UpsertItem(new Doc { Id = "b2", Pk = "pb", N = 2 })
            .ReadItem("b-existing")
            .ReplaceItem("b-existing", new Doc { Id = "b-existing", Pk = "pb", N = 10 })
            .ExecuteAsync())
        {
            var statuses = string.Join(",", ok.Select(r => (int)r.StatusCode));
            checks.Check(ok.IsSuccessStatusCode && ok.Count == 4 && statuses == "201,201,200,200", $"atomic batch commits every operation ({(int)ok.StatusCode}: {statuses})");
            var readBack = ok.GetOperationResultAtIndex<Doc>(2).Resource;
            checks.Check(readBack?.Id == "b-existing" && !string.IsNullOrEmpty(ok[0].ETag), "batch results carry bodies and ETags");
        }
        var b1 = await items.ReadItemAsync<Doc>("b1", Pk("pb"));
        checks.Check(b1.Resource.N == 1, "a batch's created item is readable");

        using (var conflicting = await items.CreateTransactionalBatch(Pk("pb"))
            .CreateItem(new Doc { Id = "b3", Pk = "pb", N = 3 })
            .CreateItem(new Doc { Id = "b1", Pk = "pb", N = 99 })
            .ExecuteAsync())
        {
            var statuses = string.Join(",", conflicting.Select(r => (int)r.StatusCode));
            checks.Check(!conflicting.IsSuccessStatusCode && conflicting.StatusCode == HttpStatusCode.Conflict && statuses == "424,409", $"conflicting batch fails as a whole ({(int)conflicting.StatusCode}: {statuses})");
        }
        await checks.ExpectStatusAsync(HttpStatusCode.NotFound, "nothing of the conflicting batch was written", () => items.ReadItemAsync<Doc>("b3", Pk("pb")));

        using (var stale = await items.CreateTransactionalBatch(Pk("pb"))
            .UpsertItem(new Doc { Id = "b4", Pk = "pb", N = 4 })
            .ReplaceItem("b1", new Doc { Id = "b1", Pk = "pb", N = 11 }, new TransactionalBatchItemRequestOptions { IfMatchEtag = "\"stale\"" })
            .ExecuteAsync())
        {
            var statuses = string.Join(",", stale.Select(r => (int)r.StatusCode));
            checks.Check(stale.StatusCode == HttpStatusCode.PreconditionFailed && statuses == "424,412", $"batch with a stale IfMatchEtag fails ({(int)stale.StatusCode}: {statuses})");
        }
        await checks.ExpectStatusAsync(HttpStatusCode.NotFound, "nothing of the stale-ETag batch was written", () => items.ReadItemAsync<Doc>("b4", Pk("pb")));
        using (var current = await items.CreateTransactionalBatch(Pk("pb"))
            .ReplaceItem("b1", new Doc { Id = "b1", Pk = "pb", N = 12 }, new TransactionalBatchItemRequestOptions { IfMatchEtag = b1.ETag })
            .ExecuteAsync())
        {
            checks.Check(current.IsSuccessStatusCode && current[0].StatusCode == HttpStatusCode.OK, $"batch with the current IfMatchEtag commits ({(int)current.StatusCode})");
        }
        var b1After = await items.ReadItemAsync<Doc>("b1", Pk("pb"));
        checks.Check(b1After.Resource.N == 12, $"the batch's conditional replace is stored (n = {b1After.Resource.N})");

        using (var mixed = await items.CreateTransactionalBatch(Pk("pb"))
            .PatchItem("b1", [PatchOperation.Increment("/n", 1)])
            .DeleteItem("b2")
            .ExecuteAsync())
        {
            var statuses = string.Join(",", mixed.Select(r => (int)r.StatusCode));
            checks.Check(mixed.IsSuccessStatusCode && statuses == "200,204", $"batch patch and delete ({(int)mixed.StatusCode}: {statuses})");
        }
        var patchedInBatch = await items.ReadItemAsync<Doc>("b1", Pk("pb"));
        checks.Check(patchedInBatch.Resource.N == 13, $"the batch's patch is stored (n = {patchedInBatch.Resource.N})");
        await checks.ExpectStatusAsync(HttpStatusCode.NotFound, "the batch's delete is applied", () => items.ReadItemAsync<Doc>("b2", Pk("pb")));
    }

    private async Task PatchAsync(Container items)
    {
        await items.CreateItemAsync(new Doc { Id = "p", Pk = "pp", N = 1 }, Pk("pp"));
        var patched = await items.PatchItemAsync<Doc>("p", Pk("pp"), [PatchOperation.Increment("/n", 4), PatchOperation.Set("/tag", "patched")]);
        checks.Check(patched.Resource.N == 5 && patched.Resource.Tag == "patched", $"patch increments and sets (n = {patched.Resource.N}, tag = {patched.Resource.Tag})");
        await checks.ExpectStatusAsync(HttpStatusCode.PreconditionFailed, "patch with a false filter predicate", () =>
            items.PatchItemAsync<Doc>("p", Pk("pp"), [PatchOperation.Set("/n", 0)], new PatchItemRequestOptions { FilterPredicate = "FROM c WHERE c.n = 1" }));
        await checks.ExpectStatusAsync(HttpStatusCode.PreconditionFailed, "patch with a stale ETag", () =>
            items.PatchItemAsync<Doc>("p", Pk("pp"), [PatchOperation.Set("/n", 0)], new PatchItemRequestOptions { IfMatchEtag = "\"stale\"" }));
    }

    private async Task QueriesAsync(Container items)
    {
        // 30 documents over 6 partition keys, written in a scrambled order.
        var tasks = new List<Task>();
        for (var i = 0; i < 30; i++)
        {
            var n = (i * 7) % 30;
            tasks.Add(items.CreateItemAsync(new Doc { Id = $"q{n}", Pk = $"q-{n % 6}", N = n, Tag = "q" }, Pk($"q-{n % 6}")));
        }
        await Task.WhenAll(tasks);

        var partition = await ReadAllAsync(items.GetItemQueryIterator<Doc>(
            new QueryDefinition("SELECT * FROM c WHERE c.tag = @tag AND c.n >= @min").WithParameter("@tag", "q").WithParameter("@min", 10),
            requestOptions: new QueryRequestOptions { PartitionKey = Pk("q-2"), MaxItemCount = 2 }));
        var expected = Enumerable.Range(10, 20).Where(n => n % 6 == 2).ToList();
        checks.Check(partition.Select(d => d.N).OrderBy(n => n).SequenceEqual(expected), $"partition query with parameters ({string.Join(",", partition.Select(d => d.N))})");

        var ordered = await ReadAllAsync(items.GetItemQueryIterator<Doc>(
            new QueryDefinition("SELECT * FROM c WHERE c.tag = @tag ORDER BY c.n DESC").WithParameter("@tag", "q"),
            requestOptions: new QueryRequestOptions { MaxItemCount = 7 }));
        checks.Check(ordered.Select(d => d.N).SequenceEqual(Enumerable.Range(0, 30).Reverse()), $"cross-partition ORDER BY over pages ({ordered.Count} items)");

        var count = await ReadAllAsync(items.GetItemQueryIterator<int>(new QueryDefinition("SELECT VALUE COUNT(1) FROM c WHERE c.tag = 'q'")));
        checks.Check(count.Count == 1 && count[0] == 30, $"cross-partition SELECT VALUE COUNT(1) ({string.Join(",", count)})");

        var top = await ReadAllAsync(items.GetItemQueryIterator<Doc>(new QueryDefinition("SELECT TOP 3 * FROM c WHERE c.tag = 'q' ORDER BY c.n")));
        checks.Check(top.Select(d => d.N).SequenceEqual([0, 1, 2]), $"cross-partition TOP with ORDER BY ({string.Join(",", top.Select(d => d.N))})");

        // Through the query plan: aggregates outside SELECT VALUE, OFFSET LIMIT, GROUP BY and DISTINCT, over every range.
        var nonValue = await ReadAllAsync(items.GetItemQueryIterator<Newtonsoft.Json.Linq.JObject>(new QueryDefinition("SELECT COUNT(1) AS n, MAX(c.n) AS high FROM c WHERE c.tag = 'q'")));
        checks.Check(nonValue.Count == 1 && (int?)nonValue[0]["n"] == 30 && (int?)nonValue[0]["high"] == 29, $"SELECT COUNT(1) AS n, MAX(c.n) AS high across partitions ({string.Join(",", nonValue.Select(r => r.ToString(Newtonsoft.Json.Formatting.None)))})");
        var window = await ReadAllAsync(items.GetItemQueryIterator<Doc>(new QueryDefinition("SELECT * FROM c WHERE c.tag = 'q' ORDER BY c.n OFFSET 5 LIMIT 3"), requestOptions: new QueryRequestOptions { MaxItemCount = 2 }));
        checks.Check(window.Select(d => d.N).SequenceEqual([5, 6, 7]), $"cross-partition ORDER BY with OFFSET LIMIT ({string.Join(",", window.Select(d => d.N))})");
        var groups = await ReadAllAsync(items.GetItemQueryIterator<Newtonsoft.Json.Linq.JObject>(new QueryDefinition("SELECT c.pk, COUNT(1) AS n, SUM(c.n) AS total FROM c WHERE c.tag = 'q' GROUP BY c.pk")));
        var expectedGroups = Enumerable.Range(0, 6).Select(k => $"q-{k}:5:{Enumerable.Range(0, 30).Where(n => n % 6 == k).Sum()}").ToList();
        var actualGroups = groups.Select(g => $"{g["pk"]}:{g["n"]}:{g["total"]}").OrderBy(x => x).ToList();
        checks.Check(actualGroups.SequenceEqual(expectedGroups), $"cross-partition GROUP BY with COUNT and SUM ({string.Join(",", actualGroups)})");
        var distinct = await ReadAllAsync(items.GetItemQueryIterator<string>(new QueryDefinition("SELECT DISTINCT VALUE c.pk FROM c WHERE c.tag = 'q'")));
        checks.Check(distinct.OrderBy(x => x).SequenceEqual(Enumerable.Range(0, 6).Select(k => $"q-{k}")), $"cross-partition DISTINCT ({string.Join(",", distinct)})");
        var inPartition = await ReadAllAsync(items.GetItemQueryIterator<string>(new QueryDefinition("SELECT DISTINCT VALUE c.tag FROM c"), requestOptions: new QueryRequestOptions { PartitionKey = Pk("q-1") }));
        checks.Check(inPartition.SequenceEqual(["q"]), $"DISTINCT in a partition query ({string.Join(",", inPartition)})");
        var list = await ReadAllAsync(items.GetItemQueryIterator<List<int>>(new QueryDefinition("SELECT VALUE MAKELIST(c.n) FROM c WHERE c.tag = 'q' AND c.n < 4")));
        checks.Check(list.Count == 1 && list[0].OrderBy(n => n).SequenceEqual([0, 1, 2, 3]), $"cross-partition MAKELIST ({string.Join(",", list.SelectMany(l => l))})");
    }

    private async Task TtlAsync(Database database)
    {
        // Item TTL: the container allows per-item TTL (-1) and the item asks for one second.
        var perItem = (await database.CreateContainerIfNotExistsAsync(new ContainerProperties("ttl-items", "/pk") { DefaultTimeToLive = -1 })).Container;
        await perItem.CreateItemAsync(new Doc { Id = "short", Pk = "t", Ttl = 1 }, Pk("t"));
        await perItem.CreateItemAsync(new Doc { Id = "kept", Pk = "t" }, Pk("t"));
        var expired = await Checks.UntilAsync(async () => !await ExistsAsync(perItem, "short", "t"));
        checks.Check(expired && await ExistsAsync(perItem, "kept", "t"), "an item with ttl 1 expires; one without stays");

        // Container default TTL: every item expires after one second unless it says otherwise.
        var props = new ContainerProperties("ttl-default", "/pk") { DefaultTimeToLive = 1 };
        var byDefault = (await database.CreateContainerIfNotExistsAsync(props)).Container;
        var read = await byDefault.ReadContainerAsync();
        checks.Check(read.Resource.DefaultTimeToLive == 1, $"container default TTL is stored ({read.Resource.DefaultTimeToLive})");
        await byDefault.CreateItemAsync(new Doc { Id = "d", Pk = "t" }, Pk("t"));
        await byDefault.CreateItemAsync(new Doc { Id = "forever", Pk = "t", Ttl = -1 }, Pk("t"));
        var defaultExpired = await Checks.UntilAsync(async () => !await ExistsAsync(byDefault, "d", "t"));
        checks.Check(defaultExpired && await ExistsAsync(byDefault, "forever", "t"), "the container default TTL expires items; ttl -1 overrides it");
    }

    private static async Task<bool> ExistsAsync(Container container, string id, string pk)
    {
        try
        {
            await container.ReadItemAsync<Doc>(id, Pk(pk));
            return true;
        }
        catch (CosmosException e) when (e.StatusCode == HttpStatusCode.NotFound)
        {
            return false;
        }
    }

    public static async Task<List<T>> ReadAllAsync<T>(FeedIterator<T> iterator)
    {
        var all = new List<T>();
        using (iterator)
        {
            while (iterator.HasMoreResults) all.AddRange(await iterator.ReadNextAsync());
        }
        return all;
    }
}
