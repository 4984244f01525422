using System.Net;
using Microsoft.Azure.Cosmos;
using Microsoft.Azure.Cosmos.Scripts;

namespace CosmosCompat;

/// <summary>
/// Server-side JavaScript, throughput and resource tokens through the .NET SDK, whose wire differs from the JS
/// SDK's here: it reads offers and partition key ranges by resource id (signed lower-cased) and sends a resource
/// token as its only credential for those rid-addressed reads too.
/// </summary>
public sealed class ServerChecks(Checks checks, Database database, string endpoint, Func<HttpMessageHandler> handler)
{
    private static PartitionKey Pk(string value) => new(value);

    public async Task RunAsync()
    {
        var container = (await database.CreateContainerAsync(new ContainerProperties("server", "/pk"), throughput: 500)).Container;
        await this.ScriptsAsync(container);
        await this.ThroughputAsync(container);
        await this.ResourceTokenAsync(container);
    }

    private async Task ScriptsAsync(Container container)
    {
        const string body = "function (id, fail) { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), { id: id, pk: 'sp' }, function (err) { if (err) throw err; if (fail) throw new Error('rolled back'); getContext().getResponse().setBody(id); }); }";
        await container.Scripts.CreateStoredProcedureAsync(new StoredProcedureProperties("create", body));
        var executed = await container.Scripts.ExecuteStoredProcedureAsync<string>("create", Pk("sp"), new dynamic[] { "kept", false });
        checks.Check(executed.Resource == "kept", $"a stored procedure runs and answers its body ({executed.Resource})");
        await checks.ExpectStatusAsync(HttpStatusCode.BadRequest, "a stored procedure that throws", () =>
            container.Scripts.ExecuteStoredProcedureAsync<string>("create", Pk("sp"), new dynamic[] { "dropped", true }), "rolled back");
        await checks.ExpectStatusAsync(HttpStatusCode.NotFound, "what a stored procedure wrote before throwing is not kept", () => container.ReadItemAsync<Doc>("dropped", Pk("sp")));

        await container.Scripts.CreateTriggerAsync(new TriggerProperties
        {
            Id = "tag",
            TriggerType = TriggerType.Pre,
            TriggerOperation = TriggerOperation.Create,
            Body = "function () { var r = getContext().getRequest(); var d = r.getBody(); d.tag = 'pre'; r.setBody(d); }",
        });
        var tagged = await container.CreateItemAsync(new Doc { Id = "t", Pk = "tr" }, Pk("tr"), new ItemRequestOptions { PreTriggers = new[] { "tag" } });
        checks.Check(tagged.Resource.Tag == "pre", "a pre-trigger named in the request options changes the document");

        await container.Scripts.CreateUserDefinedFunctionAsync(new UserDefinedFunctionProperties { Id = "twice", Body = "function (n) { return n * 2; }" });
        await container.CreateItemAsync(new Doc { Id = "u", Pk = "udf", N = 21 }, Pk("udf"));
        var iterator = container.GetItemQueryIterator<int>("SELECT VALUE udf.twice(c.n) FROM c WHERE c.pk = 'udf'");
        var values = new List<int>();
        while (iterator.HasMoreResults) values.AddRange(await iterator.ReadNextAsync());
        checks.Check(values.SequenceEqual(new[] { 42 }), $"a query calls a user-defined function ({string.Join(",", values)})");
    }

    private async Task ThroughputAsync(Container container)
    {
        var current = await container.ReadThroughputAsync();
        checks.Check(current == 500, $"ReadThroughputAsync reads the container's offer ({current})");
        await container.ReplaceThroughputAsync(800);
        checks.Check(await container.ReadThroughputAsync() == 800, "ReplaceThroughputAsync changes it");
    }

    private async Task ResourceTokenAsync(Container container)
    {
        await container.CreateItemAsync(new Doc { Id = "r", Pk = "rt", N = 1 }, Pk("rt"));
        var user = (await database.CreateUserAsync("reader")).User;
        var permission = await user.CreatePermissionAsync(new PermissionProperties("read", PermissionMode.Read, container));
        using var reader = new CosmosClient(endpoint, permission.Resource.Token, new CosmosClientOptions
        {
            ConnectionMode = ConnectionMode.Gateway,
            LimitToEndpoint = true,
            HttpClientFactory = () => new HttpClient(handler()),
        });
        var readOnly = reader.GetContainer(database.Id, container.Id);
        var read = await readOnly.ReadItemAsync<Doc>("r", Pk("rt"));
        checks.Check(read.Resource.N == 1, "a client holding only a Read resource token reads an item");
        var query = readOnly.GetItemQueryIterator<Doc>("SELECT * FROM c");
        var found = 0;
        while (query.HasMoreResults) found += (await query.ReadNextAsync()).Count;
        checks.Check(found > 0, $"and queries across partitions with it ({found})");
        await checks.ExpectStatusAsync(HttpStatusCode.Forbidden, "a write with a Read resource token", () => readOnly.CreateItemAsync(new Doc { Id = "w", Pk = "rt" }, Pk("rt")));
    }
}
