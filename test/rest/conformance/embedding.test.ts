import { conformance, type ConformanceCase } from './harness';

const EMBED = 'docs/references/api/resource_embedding.rst';
const ERRORS = 'src/library/PostgREST/Error.hs';

const workers = 'Workers Leaving The Lumière Factory In Lyon';
const dickson = 'The Dickson Experimental Sound Film';
const castle = 'The Haunted Castle';

const cases: ConformanceCase[] = [
  {
    name: 'many-to-one embeds the director as an object',
    source: `${EMBED} "Many-to-one relationships"`,
    request: { path: 'films?select=title,directors(id,last_name)&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, directors: { id: 2, last_name: 'Lumière' } },
        { title: dickson, directors: { id: 1, last_name: 'Dickson' } },
        { title: castle, directors: { id: 3, last_name: 'Méliès' } },
      ],
    },
  },
  {
    name: 'an alias renames the embedded resource',
    source: `${EMBED} "Many-to-one relationships"`,
    request: { path: 'films?select=title,director:directors(id,last_name)&order=id&limit=1' },
    expect: { status: 200, json: [{ title: workers, director: { id: 2, last_name: 'Lumière' } }] },
  },
  {
    name: 'one-to-many embeds the films as an array',
    source: `${EMBED} "One-to-many relationships"`,
    request: { path: 'directors?select=last_name,films(title)&order=id' },
    expect: {
      status: 200,
      json: [
        { last_name: 'Dickson', films: [{ title: dickson }] },
        { last_name: 'Lumière', films: [{ title: workers }] },
        { last_name: 'Méliès', films: [{ title: castle }] },
      ],
    },
  },
  {
    name: 'many-to-many goes through the join table whose primary key holds both keys',
    source: `${EMBED} "Many-to-many relationships"`,
    request: { path: 'actors?select=first_name,last_name,films(title)&order=id' },
    expect: {
      status: 200,
      json: [
        { first_name: 'Willem', last_name: 'Dafoe', films: [{ title: castle }] },
        { first_name: 'Jehanne', last_name: "d'Alcy", films: [{ title: castle }] },
        { first_name: 'Tom', last_name: 'Hanks', films: [{ title: workers }] },
        { first_name: 'Tom', last_name: 'Cruise', films: [{ title: workers }] },
      ],
    },
  },
  {
    name: 'one-to-one (the foreign key is the primary key) is an object, null when missing',
    source: `${EMBED} "One-to-one relationships"`,
    request: { path: 'films?select=title,technical_specs(camera)&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, technical_specs: { camera: 'Cinématographe' } },
        { title: dickson, technical_specs: null },
        { title: castle, technical_specs: { camera: 'Star Film' } },
      ],
    },
  },
  {
    name: 'the reverse of a one-to-one is an object too',
    source: `${EMBED} "One-to-one relationships"; src/library/PostgREST/SchemaCache.hs addInverseRels`,
    request: { path: 'technical_specs?select=camera,films(title)&order=film_id' },
    expect: {
      status: 200,
      json: [
        { camera: 'Cinématographe', films: { title: workers } },
        { camera: 'Star Film', films: { title: castle } },
      ],
    },
  },
  {
    name: 'two foreign keys to one table are ambiguous: 300 PGRST201 listing both',
    source: `${EMBED} "Multiple Many-To-One"; ${ERRORS} AmbiguousRelBetween`,
    request: { path: 'orders?select=*,addresses(*)' },
    expect: {
      status: 300,
      json: {
        code: 'PGRST201',
        details: [
          { cardinality: 'many-to-one', embedding: 'orders with addresses', relationship: 'billing using orders(billing_address_id) and addresses(id)' },
          { cardinality: 'many-to-one', embedding: 'orders with addresses', relationship: 'shipping using orders(shipping_address_id) and addresses(id)' },
        ],
        hint: "Try changing 'addresses' to one of the following: 'addresses!billing', 'addresses!shipping'. Find the desired relationship in the 'details' key.",
        message: "Could not embed because more than one relationship was found for 'orders' and 'addresses'",
      },
    },
  },
  {
    name: 'the foreign key named after ! disambiguates',
    source: `${EMBED} "Multiple Many-To-One"`,
    request: { path: 'orders?select=name,billing_address:addresses!billing(name),shipping_address:addresses!shipping(name)&order=id' },
    expect: {
      status: 200,
      json: [
        {
          name: 'Personal Water Filter',
          billing_address: { name: '32 Glenlake Dr.Dearborn, MI 48124' },
          shipping_address: { name: '30 Glenlake Dr.Dearborn, MI 48124' },
        },
        {
          name: 'Coffee Machine',
          billing_address: { name: '32 Glenlake Dr.Dearborn, MI 48124' },
          shipping_address: { name: '32 Glenlake Dr.Dearborn, MI 48124' },
        },
      ],
    },
  },
  {
    name: 'the foreign key disambiguates one-to-many too',
    source: `${EMBED} "Multiple One-To-Many"`,
    request: { path: 'addresses?select=name,billing_orders:orders!billing(name),shipping_orders:orders!shipping(name)&id=eq.1&billing_orders.order=id' },
    expect: {
      status: 200,
      json: [
        {
          name: '32 Glenlake Dr.Dearborn, MI 48124',
          billing_orders: [{ name: 'Personal Water Filter' }, { name: 'Coffee Machine' }],
          shipping_orders: [{ name: 'Coffee Machine' }],
        },
      ],
    },
  },
  {
    name: 'a column of the foreign key disambiguates',
    source: 'src/library/PostgREST/Plan.hs findRel ("clients!client_id")',
    request: { path: 'orders?select=name,addresses!shipping_address_id(city)&order=id&limit=1' },
    expect: { status: 200, json: [{ name: 'Personal Water Filter', addresses: { city: 'Dearborn' } }] },
  },
  {
    name: 'the foreign key alone, without the table, names the relationship',
    source: 'src/library/PostgREST/Plan.hs findRel ("projects_client_id_fkey(*)")',
    request: { path: 'orders?select=name,billing(name)&order=id&limit=1' },
    expect: { status: 200, json: [{ name: 'Personal Water Filter', billing: { name: '32 Glenlake Dr.Dearborn, MI 48124' } }] },
  },
  {
    name: 'the junction table disambiguates many-to-many',
    source: 'src/library/PostgREST/Plan.hs findRel ("tasks!users_tasks")',
    request: { path: 'films?select=title,actors!roles(last_name)&id=eq.3&actors.order=id' },
    expect: { status: 200, json: [{ title: castle, actors: [{ last_name: 'Dafoe' }, { last_name: "d'Alcy" }] }] },
  },
  {
    name: 'no relationship: 400 PGRST200 naming both tables',
    source: `${ERRORS} NoRelBetween`,
    request: { path: 'directors?select=*,actors(*)' },
    expect: {
      status: 400,
      json: {
        code: 'PGRST200',
        details: "Searched for a foreign key relationship between 'directors' and 'actors' in the schema 'public', but no matches were found.",
        hint: null,
        message: "Could not find a relationship between 'directors' and 'actors' in the schema cache",
      },
    },
  },
  {
    name: 'a hint that matches nothing is named in PGRST200',
    source: `${ERRORS} NoRelBetween`,
    request: { path: 'orders?select=*,addresses!nope(*)' },
    expect: {
      status: 400,
      json: {
        code: 'PGRST200',
        details:
          "Searched for a foreign key relationship between 'orders' and 'addresses' using the hint 'nope' in the schema 'public', but no matches were found.",
        hint: null,
        message: "Could not find a relationship between 'orders' and 'addresses' in the schema cache",
      },
    },
  },
  {
    name: 'a filter on an embedded resource filters it, not its parent',
    source: `${EMBED} "Embedded Filters"`,
    request: { path: 'films?select=title,roles(character)&roles.character=in.(Ghost,Worker)&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, roles: [{ character: 'Worker' }] },
        { title: dickson, roles: [] },
        { title: castle, roles: [{ character: 'Ghost' }] },
      ],
    },
  },
  {
    name: 'or inside an embedded resource',
    source: `${EMBED} "Embedded Filters"`,
    request: { path: 'films?select=title,roles(character)&roles.or=(character.eq.Ghost,character.eq.Foreman)&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, roles: [{ character: 'Foreman' }] },
        { title: dickson, roles: [] },
        { title: castle, roles: [{ character: 'Ghost' }] },
      ],
    },
  },
  {
    name: 'order, limit and offset inside an embedded resource',
    source: `${EMBED} "Embedded Filters"`,
    request: { path: 'films?select=title,actors(last_name)&actors.order=id.desc&actors.limit=1&actors.offset=1&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, actors: [{ last_name: 'Hanks' }] },
        { title: dickson, actors: [] },
        { title: castle, actors: [{ last_name: 'Dafoe' }] },
      ],
    },
  },
  {
    name: 'filters and order on a nested embedded resource, by its path',
    source: `${EMBED} "Embedded Filters"`,
    request: { path: 'films?select=title,roles(character,actors(first_name,last_name))&roles.actors.last_name=eq.Hanks&roles.order=character&id=eq.1' },
    expect: {
      status: 200,
      json: [
        {
          title: workers,
          roles: [
            { character: 'Foreman', actors: { first_name: 'Tom', last_name: 'Hanks' } },
            { character: 'Worker', actors: null },
          ],
        },
      ],
    },
  },
  {
    name: 'nested embedding through the join table',
    source: `${EMBED} "Nested Embedding"`,
    request: { path: 'actors?select=roles(character,films(title,year))&id=eq.1' },
    expect: { status: 200, json: [{ roles: [{ character: 'Cavalier', films: { title: castle, year: 1896 } }] }] },
  },
  {
    name: '!inner keeps only the parents with a matching embedded row',
    source: `${EMBED} "Top-level Filtering"`,
    request: { path: 'films?select=title,actors!inner(first_name,last_name)&actors.first_name=eq.Jehanne' },
    expect: { status: 200, json: [{ title: castle, actors: [{ first_name: 'Jehanne', last_name: "d'Alcy" }] }] },
  },
  {
    name: 'without !inner the parents stay, with empty arrays',
    source: `${EMBED} "Top-level Filtering"`,
    request: { path: 'films?select=title,actors(first_name,last_name)&actors.first_name=eq.Jehanne&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, actors: [] },
        { title: dickson, actors: [] },
        { title: castle, actors: [{ first_name: 'Jehanne', last_name: "d'Alcy" }] },
      ],
    },
  },
  {
    name: '!left is the default join',
    source: 'src/library/PostgREST/ApiRequest/QueryParams.hs pEmbedParams',
    request: { path: 'films?select=title,technical_specs!left(camera)&id=eq.2' },
    expect: { status: 200, json: [{ title: dickson, technical_specs: null }] },
  },
  {
    name: '!inner on a to-one embed drops the parents without one',
    source: `${EMBED} "Top-level Filtering"`,
    request: { path: 'films?select=title,technical_specs!inner(camera)&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, technical_specs: { camera: 'Cinématographe' } },
        { title: castle, technical_specs: { camera: 'Star Film' } },
      ],
    },
  },
  {
    name: 'an empty embed filters without showing',
    source: `${EMBED} "Empty Embed"`,
    request: { path: 'films?select=title,actors!inner()&actors.first_name=eq.Jehanne' },
    expect: { status: 200, json: [{ title: castle }] },
  },
  {
    name: '!inner counts only the parents it keeps',
    source: 'src/library/PostgREST/Query/QueryBuilder.hs readPlanToCountQuery',
    request: { path: 'films?select=title,actors!inner(first_name)&actors.first_name=eq.Tom', headers: { Prefer: 'count=exact' } },
    expect: { status: 200, headers: { 'content-range': '0-0/1' }, json: [{ title: workers, actors: [{ first_name: 'Tom' }, { first_name: 'Tom' }] }] },
  },
  {
    name: 'not.is.null on an embedded resource works as !inner',
    source: `${EMBED} "Null filtering on Embedded Resources"`,
    request: { path: 'films?select=title,actors(first_name)&actors.first_name=eq.Jehanne&actors=not.is.null' },
    expect: { status: 200, json: [{ title: castle, actors: [{ first_name: 'Jehanne' }] }] },
  },
  {
    name: 'is.null on an embedded resource keeps the parents without one',
    source: `${EMBED} "Null filtering on Embedded Resources"`,
    request: { path: 'films?select=title,actors(first_name)&actors.first_name=eq.Jehanne&actors=is.null&order=id' },
    expect: {
      status: 200,
      json: [
        { title: workers, actors: [] },
        { title: dickson, actors: [] },
      ],
    },
  },
  {
    name: 'any other operator on an embedded resource: 400 PGRST120',
    source: `${ERRORS} UnacceptableFilter`,
    request: { path: 'films?select=title,actors(first_name)&actors=eq.1' },
    expect: {
      status: 400,
      json: {
        code: 'PGRST120',
        details: 'Only is null or not is null filters are allowed on embedded resources',
        hint: null,
        message: "Bad operator on the 'actors' embedded resource",
      },
    },
  },
  {
    name: 'a filter for a resource the select does not embed: 400 PGRST108',
    source: `${ERRORS} NotEmbedded`,
    request: { path: 'films?select=title&actors.order=id' },
    expect: {
      status: 400,
      json: {
        code: 'PGRST108',
        details: null,
        hint: "Verify that 'actors' is included in the 'select' query parameter.",
        message: "'actors' is not an embedded resource in this request",
      },
    },
  },
  {
    name: 'an aliased resource is filtered by its alias: its name is PGRST108',
    source: `${ERRORS} NotEmbedded (with an alias)`,
    request: { path: 'films?select=title,cast:actors(id)&actors.limit=1' },
    expect: {
      status: 400,
      json: {
        code: 'PGRST108',
        details: 'Target names are not allowed in filters if they have an alias',
        hint: "Change 'actors' to 'cast' in filters, orders or limits.",
        message: "'actors' is not an embedded resource in this request",
      },
    },
  },
  {
    name: 'the alias filters its resource',
    source: `${EMBED} "Embedded Filters" (aliases)`,
    request: { path: 'films?select=title,cast:actors(id)&cast.order=id&cast.limit=1&id=eq.3' },
    expect: { status: 200, json: [{ title: castle, cast: [{ id: 1 }] }] },
  },
  {
    name: 'a spread to-one embed lifts its columns into the parent',
    source: `${EMBED} "Spread To-One relationships"`,
    request: { path: 'films?select=title,...directors(director_first_name:first_name,director_last_name:last_name)&order=id&limit=2' },
    expect: {
      status: 200,
      json: [
        { title: workers, director_first_name: 'Louis', director_last_name: 'Lumière' },
        { title: dickson, director_first_name: 'William', director_last_name: 'Dickson' },
      ],
    },
  },
  {
    name: 'a spread to-many embed lifts each column as an array (PostgREST 13)',
    source: `${EMBED} "Spread To-Many relationships"`,
    request: { path: 'films?select=title,...actors(first_names:first_name)&actors.order=id&id=eq.1' },
    expect: { status: 200, json: [{ title: workers, first_names: ['Tom', 'Tom'] }] },
  },
  {
    name: 'embedding after a write joins the written rows',
    source: `${EMBED} "Foreign Key Joins on Writes"`,
    request: {
      method: 'PATCH',
      path: 'films?id=eq.1&select=title,year,director:directors(first_name,last_name)',
      headers: { Prefer: 'return=representation' },
      body: { year: 1895 },
    },
    expect: { status: 200, json: [{ title: workers, year: 1895, director: { first_name: 'Louis', last_name: 'Lumière' } }] },
  },
  {
    name: 'a function returning rows of a table embeds through its keys',
    source: `${EMBED} "Foreign Key Joins on Table-Valued Functions"`,
    request: { path: 'rpc/getallfilms?select=title,directors(id,last_name)&title=like.*Workers*' },
    expect: { status: 200, json: [{ title: workers, directors: { id: 2, last_name: 'Lumière' } }] },
  },
  {
    name: 'embeds nest at most 4 levels: 400 PGRST100',
    source: 'NodeHarbor bound (README "Limits of the API"); PostgREST has none',
    request: { path: 'films?select=roles(films(roles(films(roles(*)))))' },
    expect: {
      status: 400,
      json: {
        code: 'PGRST100',
        details: 'embedded resources may nest at most 4 levels',
        hint: null,
        message: '"failed to parse select parameter (roles(films(roles(films(roles(*))))))" (column 30)',
      },
    },
  },
];

const JSON_DOCS = 'docs/references/api/tables_views.rst "JSON Columns"';

const jsonCases: ConformanceCase[] = [
  {
    name: '->> and -> in select take the last key as their name',
    source: JSON_DOCS,
    request: { path: 'people?select=id,json_data->>blood_type,json_data->phones&order=id&limit=2' },
    expect: {
      status: 200,
      json: [
        { id: 1, blood_type: 'A-', phones: [{ country_code: '61', number: '917-929-5745' }] },
        {
          id: 2,
          blood_type: 'O+',
          phones: [
            { country_code: '43', number: '512-446-4988' },
            { country_code: '43', number: '213-891-5979' },
          ],
        },
      ],
    },
  },
  {
    name: 'an array index in the path, the name from the last key',
    source: JSON_DOCS,
    request: { path: 'people?select=id,json_data->phones->0->>number&order=id&limit=2' },
    expect: {
      status: 200,
      json: [
        { id: 1, number: '917-929-5745' },
        { id: 2, number: '512-446-4988' },
      ],
    },
  },
  {
    name: '->> in a filter compares text',
    source: JSON_DOCS,
    request: { path: 'people?select=id,json_data->blood_type&json_data->>blood_type=eq.A-&order=id' },
    expect: {
      status: 200,
      json: [
        { id: 1, blood_type: 'A-' },
        { id: 3, blood_type: 'A-' },
      ],
    },
  },
  {
    name: '-> in a filter compares JSON values',
    source: JSON_DOCS,
    request: { path: 'people?select=id,json_data->age&json_data->age=gt.20&order=id' },
    expect: {
      status: 200,
      json: [
        { id: 2, age: 25 },
        { id: 3, age: 35 },
      ],
    },
  },
  {
    name: 'order by a JSON path',
    source: JSON_DOCS,
    request: { path: 'people?select=id,json_data->age&order=json_data->>age.desc' },
    expect: {
      status: 200,
      json: [
        { id: 3, age: 35 },
        { id: 2, age: 25 },
        { id: 1, age: 19 },
      ],
    },
  },
  {
    name: 'an alias and a cast on a JSON path',
    source: `${JSON_DOCS}; "Casting Columns"`,
    request: { path: 'people?select=id,years:json_data->>age::int&id=eq.3' },
    expect: { status: 200, json: [{ id: 3, years: 35 }] },
  },
  {
    name: 'arrows reach into array and composite columns through to_jsonb',
    source: 'docs/references/api/tables_views.rst "Composite / Array Columns"',
    request: { path: 'countries?select=id,location->>lat,location->>long,primary_language:languages->0&location->lat=gte.19' },
    expect: { status: 200, json: [{ id: 5, lat: '19.741755', long: '-155.844437', primary_language: 'en' }] },
  },
  {
    name: 'a JSON path inside an or',
    source: 'src/library/PostgREST/ApiRequest/QueryParams.hs pLogicTree',
    request: { path: 'people?select=id&or=(json_data->>blood_type.eq.O%2B,json_data->age.gt.30)&order=id' },
    expect: { status: 200, json: [{ id: 2 }, { id: 3 }] },
  },
];

const PEOPLE_SQL = `
create table public.people (id int primary key, json_data jsonb);
insert into public.people values
  (1, '{"blood_type": "A-", "age": 19, "phones": [{"country_code": "61", "number": "917-929-5745"}]}'),
  (2, '{"blood_type": "O+", "age": 25, "phones": [{"country_code": "43", "number": "512-446-4988"}, {"country_code": "43", "number": "213-891-5979"}]}'),
  (3, '{"blood_type": "A-", "age": 35, "phones": []}');
grant select on public.people to anon, authenticated;
create type public.coordinates as (lat decimal(8,6), long decimal(9,6));
create table public.countries (id int primary key, location public.coordinates, languages text[]);
insert into public.countries values (1, '(-33.868820,151.209290)', '{en}'), (5, '(19.741755,-155.844437)', '{en,haw}');
grant select on public.countries to anon, authenticated;
`;

conformance('Resource embedding', cases, {
  sql: 'create function public.getallfilms() returns setof public.films language sql stable as $$ select * from public.films $$;',
});
conformance('JSON paths', jsonCases, { sql: PEOPLE_SQL });
