/**
 * The sample databases of PostgREST's documentation, with the rows its examples answer from:
 * the film database of docs/references/api/resource_embedding.rst ("Relationships"), the orders
 * and addresses of its "Multiple Many-To-One", and the tables of tables_views.rst and
 * aggregate_functions.rst the operator and aggregate cases use. Created by the owner connection
 * with plain grants and no RLS: RLS through embedding is the RLS matrix's (test/domain).
 */
export const FILM_SQL = `
create table public.actors (id int primary key generated always as identity, first_name text, last_name text);
create table public.directors (id int primary key generated always as identity, first_name text, last_name text);
create table public.films (
  id int primary key generated always as identity,
  director_id int references public.directors(id),
  title text,
  year int,
  rating numeric(3,1),
  language text
);
create table public.technical_specs (film_id int references public.films(id) primary key, runtime time, camera text, sound text);
create table public.roles (
  film_id int references public.films(id),
  actor_id int references public.actors(id),
  character text,
  primary key (film_id, actor_id)
);
create table public.competitions (id int primary key generated always as identity, name text, year int);
create table public.nominations (
  competition_id int references public.competitions(id),
  film_id int references public.films(id),
  rank int,
  primary key (competition_id, film_id)
);
create table public.addresses (id int primary key generated always as identity, name text, city text, state text, postal_code char(5));
create table public.orders (
  id int primary key generated always as identity,
  name text,
  billing_address_id int,
  shipping_address_id int,
  constraint billing foreign key (billing_address_id) references public.addresses(id),
  constraint shipping foreign key (shipping_address_id) references public.addresses(id)
);

insert into public.directors (first_name, last_name) values ('William', 'Dickson'), ('Louis', 'Lumière'), ('Georges', 'Méliès');
insert into public.films (director_id, title, year, rating, language) values
  (2, 'Workers Leaving The Lumière Factory In Lyon', 1895, 7.1, 'silent'),
  (1, 'The Dickson Experimental Sound Film', 1894, 6.3, 'english'),
  (3, 'The Haunted Castle', 1896, 6.2, 'silent');
insert into public.actors (first_name, last_name) values ('Willem', 'Dafoe'), ('Jehanne', 'd''Alcy'), ('Tom', 'Hanks'), ('Tom', 'Cruise');
insert into public.roles (film_id, actor_id, character) values (3, 2, 'Ghost'), (3, 1, 'Cavalier'), (1, 4, 'Worker'), (1, 3, 'Foreman');
insert into public.technical_specs (film_id, runtime, camera, sound) values (1, '00:00:46', 'Cinématographe', 'none'), (3, '00:03:15', 'Star Film', 'none');
insert into public.competitions (name, year) values ('Venice', 1896), ('Paris', 1897);
insert into public.nominations (competition_id, film_id, rank) values (1, 3, 1), (1, 1, 5), (2, 1, 2);
insert into public.addresses (name, city, state, postal_code) values
  ('32 Glenlake Dr.Dearborn, MI 48124', 'Dearborn', 'MI', '48124'),
  ('30 Glenlake Dr.Dearborn, MI 48124', 'Dearborn', 'MI', '48124');
insert into public.orders (name, billing_address_id, shipping_address_id) values
  ('Personal Water Filter', 1, 2),
  ('Coffee Machine', 1, 1);

grant select, insert, update, delete on public.actors, public.directors, public.films, public.technical_specs, public.roles,
  public.competitions, public.nominations, public.addresses, public.orders to anon, authenticated;
`;
