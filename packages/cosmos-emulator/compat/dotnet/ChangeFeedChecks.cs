using System.Collections.Concurrent;
using Microsoft.Azure.Cosmos;

namespace CosmosCompat;

/// <summary>
/// ChangeFeedProcessor with a lease container, as the Functions host's Cosmos DB trigger runs it: every change of
/// 1,000 documents over 20 partition keys, per key in order, across a processor restart; then two processors
/// sharing one lease container when the emulator serves containers as two or more ranges.
/// </summary>
public sealed class ChangeFeedChecks(Checks checks, Database database)
{
    private const int Keys = 20;
    private const int PerKey = 50;

    /// <summary>What the handlers saw: (instance, pk, n) in delivery order.</summary>
    private readonly ConcurrentQueue<(string Instance, string Pk, int N)> seen = new();

    public async Task RunAsync()
    {
        var feed = (await database.CreateContainerIfNotExistsAsync("feed", "/pk")).Container;
        var leases = (await database.CreateContainerIfNotExistsAsync("leases", "/id")).Container;
        var ranges = await feed.GetFeedRangesAsync();
        Console.WriteLine($"     (the feed container has {ranges.Count} feed range(s))");

        await this.ProcessorAcrossRestartAsync(feed, leases);
        await this.IteratorAsync(feed, ranges);
        if (ranges.Count >= 2)
        {
            await this.TwoProcessorsAsync(database, ranges.Count);
        }
    }

    private ChangeFeedProcessor Build(Container feed, Container leases, string processor, string instance) =>
        feed.GetChangeFeedProcessorBuilder<Doc>(processor, (changes, token) =>
            {
                foreach (var doc in changes) this.seen.Enqueue((instance, doc.Pk, doc.N));
                return Task.CompletedTask;
            })
            .WithInstanceName(instance)
            .WithLeaseContainer(leases)
            .WithStartTime(DateTime.MinValue.ToUniversalTime())
            .WithPollInterval(TimeSpan.FromMilliseconds(100))
            .WithMaxItems(100)
            .WithLeaseConfiguration(acquireInterval: TimeSpan.FromSeconds(1), expirationInterval: TimeSpan.FromSeconds(10), renewInterval: TimeSpan.FromSeconds(2))
            .Build();

    /// <summary>Writes documents n = from..to-1 of every key, key by key interleaved, in ascending n per key.</summary>
    private static async Task WriteAsync(Container feed, string prefix, int from, int to)
    {
        for (var n = from; n < to; n++)
        {
            var batch = new List<Task>();
            for (var k = 0; k < Keys; k++)
            {
                batch.Add(feed.UpsertItemAsync(new Doc { Id = $"{prefix}-{k}-{n}", Pk = $"{prefix}-{k}", N = n }, new PartitionKey($"{prefix}-{k}")));
            }
            await Task.WhenAll(batch);
        }
    }

    private int Distinct(string prefix) => this.seen.Where(s => s.Pk.StartsWith(prefix + "-", StringComparison.Ordinal)).Select(s => (s.Pk, s.N)).Distinct().Count();

    /// <summary>Per key, the first delivery of each n comes in ascending n (redeliveries are allowed, reordering is not).</summary>
    private bool InOrderPerKey(string prefix, out string detail)
    {
        foreach (var group in this.seen.Where(s => s.Pk.StartsWith(prefix + "-", StringComparison.Ordinal)).GroupBy(s => s.Pk))
        {
            var firsts = new List<int>();
            var met = new HashSet<int>();
            foreach (var s in group) if (met.Add(s.N)) firsts.Add(s.N);
            if (!firsts.SequenceEqual(firsts.OrderBy(n => n)))
            {
                detail = $"{group.Key}: {string.Join(",", firsts.Take(20))}";
                return false;
            }
        }
        detail = "";
        return true;
    }

    private async Task ProcessorAcrossRestartAsync(Container feed, Container leases)
    {
        const string prefix = "r";
        var first = this.Build(feed, leases, "compat", "host-a");
        await first.StartAsync();
        await WriteAsync(feed, prefix, 0, PerKey / 2);
        var half = await Checks.UntilAsync(() => Task.FromResult(this.Distinct(prefix) >= Keys * PerKey / 2));
        await first.StopAsync();
        checks.Check(half, $"the change feed processor sees the first 500 changes ({this.Distinct(prefix)})");

        // Written while no processor runs: the restarted one continues from its leases.
        await WriteAsync(feed, prefix, PerKey / 2, PerKey);
        var leaseCount = (await ItemChecks.ReadAllAsync(leases.GetItemQueryIterator<dynamic>("SELECT * FROM c"))).Count;
        checks.Check(leaseCount > 0, $"the processor keeps its leases in the lease container ({leaseCount} documents)");
        var before = this.seen.Count;
        var second = this.Build(feed, leases, "compat", "host-a");
        await second.StartAsync();
        var all = await Checks.UntilAsync(() => Task.FromResult(this.Distinct(prefix) >= Keys * PerKey));
        await second.StopAsync();
        var redelivered = this.seen.Skip(before).Count(s => s.Pk.StartsWith(prefix + "-", StringComparison.Ordinal) && s.N < PerKey / 2);
        checks.Check(all && this.Distinct(prefix) == Keys * PerKey, $"after a restart the processor sees all 1,000 changes ({this.Distinct(prefix)}; {redelivered} of the first 500 again)");
        checks.Check(this.InOrderPerKey(prefix, out var detail), $"changes arrive in order within each of the 20 partition keys {detail}");
    }

    /// <summary>The change feed iterator: from the beginning, per feed range, and resumed from a continuation.</summary>
    private async Task IteratorAsync(Container feed, IReadOnlyList<FeedRange> ranges)
    {
        var all = await DrainAsync(feed.GetChangeFeedIterator<Doc>(ChangeFeedStartFrom.Beginning(), ChangeFeedMode.LatestVersion, new ChangeFeedRequestOptions { PageSizeHint = 300 }));
        checks.Check(all.Docs.Count == Keys * PerKey && all.Docs.Select(d => d.Id).Distinct().Count() == Keys * PerKey, $"the change feed iterator from the beginning returns each of the 1,000 documents once ({all.Docs.Count})");
        var perRange = 0;
        foreach (var range in ranges)
        {
            perRange += (await DrainAsync(feed.GetChangeFeedIterator<Doc>(ChangeFeedStartFrom.Beginning(range), ChangeFeedMode.LatestVersion))).Docs.Count;
        }
        checks.Check(perRange == Keys * PerKey, $"the feed ranges' change feeds add up to the container's ({perRange} over {ranges.Count} range(s))");

        await feed.UpsertItemAsync(new Doc { Id = "late", Pk = "r-3", N = 1000 }, new PartitionKey("r-3"));
        var resumed = await DrainAsync(feed.GetChangeFeedIterator<Doc>(ChangeFeedStartFrom.ContinuationToken(all.Continuation), ChangeFeedMode.LatestVersion));
        checks.Check(resumed.Docs.Select(d => d.Id).SequenceEqual(["late"]), $"resumed from its continuation the iterator returns only the newer change ({string.Join(",", resumed.Docs.Select(d => d.Id))})");
        var now = feed.GetChangeFeedIterator<Doc>(ChangeFeedStartFrom.Now(), ChangeFeedMode.LatestVersion);
        var first = await now.ReadNextAsync();
        checks.Check(first.StatusCode == System.Net.HttpStatusCode.NotModified, $"a change feed from now answers 304 until something changes ({(int)first.StatusCode})");
    }

    /// <summary>Reads a change feed until it answers 304; returns what it read and the continuation at that point.</summary>
    private static async Task<(List<Doc> Docs, string Continuation)> DrainAsync(FeedIterator<Doc> iterator)
    {
        var docs = new List<Doc>();
        using (iterator)
        {
            while (iterator.HasMoreResults)
            {
                var page = await iterator.ReadNextAsync();
                if (page.StatusCode == System.Net.HttpStatusCode.NotModified) return (docs, page.ContinuationToken);
                docs.AddRange(page);
            }
        }
        throw new InvalidOperationException("a change feed iterator ended without HasMoreResults turning false at a 304");
    }

    private async Task TwoProcessorsAsync(Database db, int rangeCount)
    {
        const string prefix = "s";
        var feed = (await db.CreateContainerIfNotExistsAsync("feed-shared", "/pk")).Container;
        var leases = (await db.CreateContainerIfNotExistsAsync("leases-shared", "/id")).Container;
        var a = this.Build(feed, leases, "shared", "host-a");
        var b = this.Build(feed, leases, "shared", "host-b");
        await a.StartAsync();
        await b.StartAsync();
        try
        {
            // Leases settle before the writes, so each range's changes go to the host that owns it.
            var balanced = await Checks.UntilAsync(async () =>
            {
                var owners = await ItemChecks.ReadAllAsync(leases.GetItemQueryIterator<LeaseOwner>("SELECT c.Owner FROM c WHERE IS_DEFINED(c.LeaseToken)"));
                return owners.Count == rangeCount && owners.Select(o => o.Owner).Distinct().Count() == 2;
            });
            checks.Check(balanced, $"two processors sharing a lease container split the {rangeCount} leases");
            await WriteAsync(feed, prefix, 0, PerKey);
            var all = await Checks.UntilAsync(() => Task.FromResult(this.Distinct(prefix) >= Keys * PerKey));
            var byInstance = this.seen.Where(s => s.Pk.StartsWith(prefix + "-", StringComparison.Ordinal)).GroupBy(s => s.Instance).ToDictionary(g => g.Key, g => g.Count());
            checks.Check(all && this.Distinct(prefix) == Keys * PerKey, $"together they see all 1,000 changes ({this.Distinct(prefix)})");
            checks.Check(byInstance.Count == 2, $"both processors handle changes ({string.Join(", ", byInstance.Select(kv => $"{kv.Key}: {kv.Value}"))})");
            checks.Check(this.InOrderPerKey(prefix, out var detail), $"with two processors changes still arrive in order per key {detail}");
        }
        finally
        {
            await a.StopAsync();
            await b.StopAsync();
        }
    }

    private sealed class LeaseOwner
    {
        [Newtonsoft.Json.JsonProperty("Owner")] public string? Owner { get; set; }
    }
}
