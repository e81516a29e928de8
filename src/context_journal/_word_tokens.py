"""The words of four or more ASCII letters that ``cl100k_base`` and ``o200k_base`` both encode as one
token after a space (lowercased): the token estimate prices such a word by the word model, and a
word of four or more lowercase letters that is not here (German, Dutch, Finnish, Italian words...)
by its length, about a token per three letters (Latin-script languages other than
English were once estimated at 0.53-0.81x). ``CAPITALS``: the words in capitals that both hold as one
token after a space (``ERROR``, ``SELECT``); another word in capitals is priced by its length
(``QUARTERLY``: four tokens; prose in capitals was estimated at 0.63x when its lowercase decided).
``SHORT_CAPITALS``: the words of two or three capitals that are one token (another is two),
``SHORT_WORDS``: the lowercase words of two or three letters that are one token (another, ``nke``,
``ihe``, is two: Igbo was estimated at 0.82x when every short word was one), and
``COMMON_PAIRS``: the letter pairs most frequent in ``WORDS`` (random letters miss them).

Generated from tiktoken's ranks (MIT licence) by
``tests/compile/test_token_estimate_scripts.py::test_the_word_table_matches_the_encodings`` (it fails,
printing this text, when the table and the encodings disagree): 23,677 words and 942
in capitals. Do not edit by hand.
"""

from __future__ import annotations

WORDS = frozenset(
    """
aantal aaron abaixo abandon abandoned abandoning abandonment abbas abbey abbiamo abbott abbreviated
abbreviation abby abdel abdomen abdominal abdul abdullah abel aber aberdeen aberr abide abilities
ability able abnormal abnormalities aboard abol abolished abolition aboriginal abort aborted
abortion abortions abound about above abraham abram abrams abras abrasive abre abril abrir abroad
abrupt abruptly absence absent absentee absol absolut absolute absolutely absor absorb absorbed
absorbing absorbs absorption abst abstract abstraction absurd abund abundance abundant abuse abused
abuses abusing abusive abyss acab acad academia academic academics academy accel acceler accelerate
accelerated accelerating acceleration accelerator accent accents accept acceptable acceptance
accepted accepting accepts acces acceso access accessed accesses accessibility accessible accessing
accession accessor accessories accessory accident accidental accidentally accidents acciones acclaim
acclaimed accol accom accommod accommodate accommodating accommodation accommodations accomp
accompagn accompanied accompanies accompany accompanying accompl accomplish accomplished
accomplishment accomplishments accord accordance according accordingly accordion account
accountability accountable accountant accounted accounting accounts accr accred accreditation
accredited accru accrued acct accum accumulate accumulated accumulating accumulation accumulator
accur accuracy accurate accurately accus accusation accusations accuse accused accusing accustomed
acept acer acess acesso acest acet ache acheter achie achievable achieve achieved achievement
achievements achieves achieving achilles achter acid acidic acidity acids acknow acknowled
acknowledge acknowledged acknowledgement acknowledges acknowledging acknowledgment acne acomp
acompan acompanh aconte acordo acos acoustic acqu acquaint acquaintance acquainted acquire acquired
acquiring acquisition acquisitions acre acres acrobat acronym across acrylic acted acting action
actionable actions activ activate activated activates activating activation active actively
actividad actividades activism activist activists activities activity actor actors actress actresses
acts actu actual actualizar actually acuerdo acum acupuncture acute adalah adam adams adap adapt
adaptable adaptation adaptations adapted adapter adapters adapting adaptive adaptor added addict
addicted addiction addictive addicts adding addison addition additional additionally additions
additive additives addon addons addr address addressed addresses addressing adds adel adelaide aden
adept adequ adequate adequately adhd adher adhere adherence adhesive adicion adidas adip adipiscing
adipisicing adjacency adjacent adjective adjoining adjud adjunct adjust adjustable adjusted
adjusting adjustment adjustments adjusts adler admin administer administered administering administr
administration administrations administrative administrator administrators admins admir admirable
admiral admiration admire admired admission admissions admit admits admitted admittedly admitting
admon adobe adolescence adolescent adolescente adolescents adolf adopt adopted adopting adoption
adopts adorable adore adorn adorned adrenal adrenaline adres adress adresse adri adrian adul adult
adulte adultes adulthood adultos adults advance advanced advancement advancements advances advancing
advant advantage advantageous advantages advent adventure adventures adventurous advers adverse
adversely adversity advert advertis advertise advertised advertisement advertisements advertiser
advertisers advertising adverts advice advis advisable advise advised adviser advisers advises
advising advisor advisors advisory advoc advocacy advocate advocated advocates advocating aerial
aero aerobic aeros aerospace aest aesthetic aesthetics afar afect affair affairs affect affected
affecting affection affects affero affid affidavit affili affiliate affiliated affiliates
affiliation affine affinity affirm affirmation affirmative affirmed afflicted affluent afford
affordability affordable afforded afghan afghanistan afin afirm afore aforementioned afraid africa
african africans afro after aftermarket aftermath afternoon afterward afterwards again against agar
aged ageing agencies agency agenda agendas agent agents ages aggi aggrav aggravated aggreg aggregate
aggregated aggregates aggregation aggregator aggress aggression aggressive aggressively agile
agility aging agitation agli agon agony agora agosto agre agree agreed agreeing agreement agreements
agrees agreg agregar agricult agricultural agriculture agua ahead ahmad ahmed ahora aide aided aider
aides aiding aids ailments aime aimed aiming aims ainda ainsi airbnb airborne airbus aircraft aire
aired aires airflow airing airline airlines airplane airplanes airport airports airs airways airy
aisle ajax ajout ajud ajust akan akin akka akron aktiv aktual aktuellen alabama alam alan alarm
alarming alarms alas alaska alban albania albany albeit albert alberta alberto album albums
albuquerque alcan alcohol alcoholic alcuni alec alejandro aleks alert alerted alerts aless alex
alexa alexand alexander alexandra alexandre alexandria alexis alfred algae algebra alger algeria
algo algorithm algorithms alguien algum algumas algun alguna algunas algunos alguns alias aliases
alibaba alic alice alicia alien aliens align aligned alignment alike aliment alimentos aliqu aliqua
alison alive alkal alla allah allan alle alleen alleg allegation allegations alleged allegedly
alleges allegiance alleging allele allem allen aller allerdings allerg allergic allergies allergy
alles allev alleviate alley alliance alliances allied allies allison allo alloc allocate allocated
allocating allocation allocations allocator allot allotted allow allowable allowance allowances
allowed allowing allows alloy alloys allure ally alma almacen almighty almond almonds almost aload
alone along alongside alonso alors alot aloud alph alpha alphabet alphabetical alpine alps already
alright also alta altar alte alter alteration alterations altered altering altern alternate
alternating alternative alternatively alternatives alters although altijd altitude alto altogether
altre altri altro altru altura alum aluminium aluminum alumni alumno alumnos aluno alunos alvarez
always alzheimer amalg amanda amar amassed amat amateur amateurs amaz amazed amazing amazingly
amazon ambassador ambassadors amber ambiance ambient ambiente ambigu ambiguity ambiguous ambit
ambition ambitions ambitious ambos ambulance amelia amen amend amended amendment amendments
amenities amer america american americans americas ames amet amid amidst amigo amigos amino amir
amis amit ammo ammon ammonia ammunition amnesty among amongst amor amore amort amount amounted
amounts amour amph amphib ampl ample amplified amplifier amplify amplitude amps amsterdam amused
amusement amusing anaheim anak anal analog analogous analogue analogy analsex analy analys analyse
analysed analyses analysis analyst analysts analytic analytical analytics analyze analyzed analyzer
analyzes analyzing anarch anast anat anatom anatomy ancestor ancestors ancestral ancestry anch anche
anchor anchored anchors ancient ancora anda ander andere anderen anders andersen anderson andr andra
andre andrea andreas andres andrew andrews android androidx andy anecd anecdotes anesthesia anew
ange angebot angel angela angeles angelo angels anger angi angie angl anglais angle angled angles
anglo angola angry angst anguish angular angus anim animal animals animate animated animation
animations animator anime anita ankara ankle ankles anmeld anna anne annex anni annie anniversary
anno annon annonce annonces annot annotate annotated annotation annotations announce announced
announcement announcements announces announcing annoy annoyance annoyed annoying annual annually
annum annunci anomal anomalies anomaly anon anonym anonymity anonymous anonymously anos another
ansch ansi answ answer answered answering answers antagon antagonist antar antarctic antarctica ante
antenna antennas anterior antes anth anthem anthology anthony anthrop anthropology anti antib
antibiot antibiotic antibiotics antibodies antibody antic anticip anticipate anticipated
anticipating anticipation antics antid antidepress antig antigen antim antioxid antioxidant
antioxidants antiqu antique antis antivirus antoine anton antonio antony ants antwort antworten
anunci anus anxiety anxious anybody anyhow anymore anyone anything anytime anyway anyways anywhere
anzeigen apache apar apare apart apartheid apartment apartments apellido apenas aperture apex apis
aplic aplik apocalypse apollo apolog apologies apologise apologize apologized apology apopt
apoptosis apost apostle appalach appalachian appar apparatus appare apparel apparent apparently
appart appe appeal appealed appealing appeals appear appearance appearances appeared appearing
appears appel appell appellant appellate append appended appendix appet appetite appl applaud
applause apple apples appliance appliances applic applicable applicant applicants application
applications applied applies apply applying appoint appointed appointment appointments appraisal
appreciate appreciated appreciation appreh apprent apprentice apprentices appro approach approached
approaches approaching appropri appropriate appropriately approval approvals approve approved
approves approving approx approximate approximately approximation apps aprend aprender apresent
april apro aprove aproxim aqua aquarium aquatic aque aquel aqui arab arabia arabian arabic arabs
arbe arbeit arbeits arbit arbitr arbitrary arbitration arbor arcade arch archae archaeological
archbishop archer archie architect architects architectural architecture architectures archival
archive archived archives archivo archivos arcs arctic arduino area areas aren arena arenas argc
argent argentina argentine argparse args arguably argue argued argues arguing argument arguments
argv aria arial ariel arise arisen arises arising arist aristotle arithmetic arizona arkansas
arlington arma armed armen armenia armenian armies armor armored armour arms armstrong army arnold
arom aroma aromatic arose around arquivo arrang arrange arranged arrangement arrangements arranging
array arrays arreglo arrest arrested arrests arriv arrival arrivals arrive arrived arrives arriving
arrog arrogance arrogant arrow arrows arsen arsenal arte artem arter arterial arteries artery
arthritis arthur artic article articles articulate articulated artifact artifacts artificial
artificially artikel artillery artisan artisans artist artistic artists arts artwork artworks asap
asbestos ascend ascending ascent ascertain ascii aseg ashamed ashe ashes asheville ashley ashton
asia asian asians asiat asic aside asign asked asking asks asleep asoci aspect aspects aspen asphalt
aspir aspiration aspirations aspire aspiring assad assass assassin assassination assault assaulted
assaults assay assays assemble assembled assembler assemblies assembling assembly assert asserted
asserting assertion assertions asserts asses assess assessed assessing assessment assessments asset
assets assez assh asshole assign assigned assigning assignment assignments assigns assim assist
assistance assistant assistants assisted assisting assistir assists assoc associ associate
associated associates association associations associative assort assorted assortment assum assume
assumed assumes assuming assumption assumptions assurance assurances assure assured assures asteroid
asthma astm aston astonishing astore astounding astr astro astrology astronaut astronauts astronom
astronomical astronomy astroph astros asus asylum asym asymmetric async asynchronous asynchronously
asyncio atan atari atas atau athe atheist athena athens athlete athletes athletic athletics ativ
atkins atlanta atlantic atlantis atlas atleast atmos atmosphere atmospheric atof atoi atol atom
atomic atoms atop atrav atrib atroc atrocities attach attached attaches attaching attachment
attachments attack attacked attacker attackers attacking attacks attain attained attainment atte
attempt attempted attempting attempts attend attendance attendant attended attendee attendees
attending attends attent attention attentive attenuation attest attic attire attitude attitudes
attorney attorneys attr attract attracted attracting attraction attractions attractive
attractiveness attracts attravers attrib attributable attribute attributed attributes attribution
attrs atual auburn auch auckland auction auctions aucun audi audible audience audiences audio audit
auditing audition auditor auditory audits audrey augment augmentation augmented august augusta
augustine aujourd aument aumento aunque aunt aura aure aurora auschwitz ausge ausp auss aussi aussie
aust austin austral australia australian australians austria austrian auswahl aute auth authentic
authenticate authenticated authentication authenticity author authored authorised authoritarian
authoritative authorities authority authorization authorize authorized authors autism autistic auto
autob autobi autobiography autoc autocomplete autodesk autof autofocus autogenerated autoimmune
autom automat automate automated automatic automatically automation automobile automobiles
automotive autonom autonomous autonomy autop autoplay autor autos autour autre autres autumn
auxiliary avail availability available avait aval avalanche avant avanz avatar avec avengers avent
avenue avenues aver average averaged averages averaging avere avery avez aviation avid avis aviv
avocado avoid avoidance avoided avoiding avoids avoir avons avril await awaited awaiting awaits
awake awaken awakened awakening award awarded awards aware awareness away awesome awful awhile
awkward axel axes axial axios axis axle ayant ayud ayuda azerbaijan azure baba babe babel babes
babies baby babylon babys bach bachelor back backbone backdrop backed backend background backgrounds
backing backlash backlog backpack backpage backs backstage backup backups backward backwards
backyard bacon bacter bacteria bacterial badass badge badges badly baff baggage baghdad bagi bags
bahamas bahrain bahwa baik bail bailey bailout bain bair bait baja bajo bake baked baker bakery
baking balance balanced balances balancing balcon balcony bald baldwin bale bali balk ball ballet
ballistic balloon balloons ballot ballots balls balt baltic baltimore bamb bamboo banana bananas
banc banco band banda bande bands bandwidth bang bangalore banging bangkok bangladesh bank banker
bankers banking bankrupt bankruptcy banks banned banner banners banning banquet bans banyak bapt
baptism baptist baptized bara barack barang barb barbar barbara barbecue barber barbie barcelona
barcl barclays barcode bard bardzo bare barely barg bargain bargaining bark barker barley barn
barnes barney baron barr barrage barred barrel barrels barren barrett barric barrier barriers barry
bars bart bartender barth barton baru basal base baseball based basel baseline baseman basement
basename bases bash basic basically basics basil basin basis basket basketball baskets bass bast
bastante bastard batch batches batching bates bath bathing bathroom bathrooms baths bathtub batman
baton bats batt battalion batter battered batteries battery batting battle battled battlefield
battles battling baud bauer baum baxter bayer bayern bayesian baylor bbox bcrypt bdsm beach beaches
beacon bead beads beam beams bean beans bear beard bearer bearing bearings bears beast beasts beat
beaten beating beatles beats beau beaucoup beaut beautiful beautifully beauty beaver beberapa became
because beck becker beckham becky become becomes becoming bedding bedeut bedford bedroom bedrooms
beds bedside bedtime beef been beep beer beers bees beet befind before beforehand began begged
begging begin beginner beginners beginning beginnings begins begr begs begun behalf behand behave
behaved behaves behaving behavior behavioral behaviors behaviour behavioural behaviours behind
behold beide beiden beige beijing beim being beings beirut beispiel beitrag bekannt bekom bekommen
belang belarus bele belfast belg belgian belgium belie belief beliefs believable believe believed
believer believers believes believing belize bell bella belle bells belly belmont belong belonged
belonging belongings belongs beloved below belt belts belum bench benches benchmark benchmarks bend
bending bends bene beneath bened benedict benef benefici beneficial beneficiaries beneficiary
beneficiation benefit benefited benefiting benefits beng bengal bengals benign benjamin benn bennett
benny benson bent bentley benton benz bere bereich bereits berg bergen berger berhasil berk berkeley
berkshire berlin berm bermuda bern bernard bernardino bernie bernstein berries berry bers bert berth
besar besch beside besides besoin besonders bespoke besser best beste besteht bestellen besten
bestimm bestowed bestselling beta beth bethesda bethlehem betr betray betrayal betrayed bets bett
better betting betty between bever beverage beverages beverly bevor beware bewert beyond bgcolor
bhar bias biased biases bible bibli biblical bibliography bicy bicycle bicycles bidder bidding biden
bidi bids bieber bied bien bieten bietet bigger biggest bigint bihar bike bikes biking bikini
bilateral bild bilder bile bilingual bill billboard billed billeder billig billing billion
billionaire billions bills billy binaries binary bind binder binding bindings binds bing binge bingo
binnen bins biochemical biod biodiversity biography biological biology biom biomass biome biomedical
biopsy bios bipartisan bipolar birch bird birds birmingham birth birthday birthdays births bisa bisc
biscuits bisexual bisher bishop bishops bist bitch bitcoin bitcoins bite bites biting bitmap bitrate
bits bitte bitten bitter bitterness bizarre black blackberry blackburn blackjack blacklist blackout
blacks bladder blade blades blah blair blake blame blamed blaming blanc blanch blanco bland blank
blanket blankets blanks blas blast blasted blasting blasts blat blatant blaze blazing bleach bleak
bleed bleeding bleiben bleibt blend blended blender blending blends bless blessed blessing blessings
blev blew blick blij blind blinded blindly blindness blinds blink blinking blir bliss blister blitz
blizzard blob blobs bloc block blockade blockbuster blockchain blocked blocker blockers blocking
blockly blocks blog blogger bloggers blogging bloginfo blogs blond blonde blood bloodstream bloody
bloom bloomberg blooms bloque bloss blossom blot blouse blow blowing blowjob blown blows blue
blueprint blues bluetooth bluff blunt blur blurred blurry blush blvd board boarded boarding boards
boast boasting boasts boat boats bobby boca bodies bodily body boeing bogus boil boiled boiler
boilers boiling boils bois boise bola bold boldly bolivia bollywood bols bolster bolt bolton bolts
bomb bombard bombay bomber bombing bombs bona bond bondage bonded bonding bonds bone bones bonne
bonnie bons bonus bonuses boob boobs book booked booker booking bookings booklet bookmark bookmarks
books bookstore bool boolean boom booming boon boone boost boosted booster boosting boosts boot
booth booths boots bootstrap booty booze bord bordeaux border bordered borderline borders bore bored
boredom borg boring boris born borne borough borr borrow borrowed borrower borrowers borrowing bosch
bose bosnia boss bosses boston botanical both bother bothered bothering bothers boto boton bots bott
bottle bottled bottles bottom bottoms bought boulder boulevard bounce bounced bouncing bound
boundaries boundary bounded bounding bounds bounty bouquet bour bourbon bourgeois bout boutique
bouts bowed bowel bowen bowie bowl bowling bowls bowman bows boxed boxer boxes boxing boycott boyd
boyfriend boyle boys brace bracelet bracelets braces bracket brackets brad bradford bradley brady
brag brah brain brains brainstorm brake brakes braking bram bran branch branches branching brand
branded branding brandon brands bras brasil brasile brass braun brav brave bravery braves bravo bray
braz brazil brazilian breach breached breaches bread breadcrumb breadcrumbs breadth break breakdown
breaker breakfast breaking breakout breakpoint breaks breakthrough breakup breast breastfeeding
breasts breat breath breathable breathe breathed breathing breathtaking bred bree breed breeding
breeds breeze bren brenda brendan brennan brent bret brethren brett breve brew brewed brewer
breweries brewers brewery brewing brexit brian brib brick bricks brid bridal bride brides bridge
bridges brief briefing briefly brig brigade briggs bright brighter brightest brightly brightness
brighton brill brilliance brilliant brilliantly bring bringen bringing brings brink brisbane brisk
bristol brit britain britann british britt brittany brittle broad broadband broadcast broadcaster
broadcasters broadcasting broadcasts broaden broader broadly broadway broccoli brochure brock broke
broken broker brokerage brokers brom bron broncos bronx bronze brook brooke brooklyn brooks bros
broth brother brotherhood brothers brought brow brown browns brows browse browser browsers browsing
bruce bruins bruk brun brunch brunette bruno brunswick brush brushed brushes brushing brussels brut
brutal brutality brutally brute bryan bryant bryce bryster bson bubb bubble bubbles bucc buch
buchanan buck bucket buckets buckingham buckle bucks budapest buddh buddha buddhism buddhist buddies
budding buddy budget budgets buds buen buena bueno buenos buff buffalo buffer buffered buffering
buffers buffet buffett buffs buffy buggy bugs build builder builders building buildings builds
buildup built builtin buiten bukkit bulb bulbs bulg bulgaria bulgarian bulk bulky bull bulld
bulldogs bullet bulletin bullets bullied bullish bullpen bulls bullshit bully bullying bump bumped
bumper bumps bunch bund bundes bundesliga bundle bundled bundles bunifu bunk bunker bunny buoy
burden burdens bure bureau bureaucr bureaucracy burg burge burgeoning burger burgers burgl burglary
burial buried burke burl burlington burma burn burned burner burning burns burnt burr burst bursting
bursts burton bury busc busca buscar buses bush bushes busiest business businesses businessman
businessmen bust busted bustling busy butcher butler butt butter butterflies butterfly butterknife
button buttons buurt buyer buyers buying buys buzz buzzing bypass byrne byron byte bytes cabbage
cabe cabel cabeza cabin cabinet cabinets cabins cable cables cabo cabr cach cache cached caches
caching cada cadastr cade cadena cadillac cadre caesar cafe cafes cafeteria caffe caffeine cage
cages cain cair cairo cait cake cakes calam calc calcium calcul calcular calculate calculated
calculates calculating calculation calculations calculator calculus cald calder caldwell caleb
calend calendar calendars calf calgary caliber calibrated calibration calidad caliente calif
californ california call callable callback callbacks calle called caller callers calling calloc
calls calm calming calmly calor calorie calories calves calvin camar camb cambi cambiar cambio
cambios cambodia cambridge camden came camel cameo camer camera cameras cameron cameroon camino
camouflage camp campaign campaigning campaigns campbell camper campground camping campo campos camps
campus campuses cams canada canadian canadians canadiens canal canary canberra canc cancel canceled
cancell cancellation cancelled cancelling cancer cancers cand candid candidate candidates candies
candle candles candy cane canine cann cannabinoids cannabis canned cannes cannon cannot canoe canon
canonical canopy cans cant canterbury cantidad canton canv canvas canyon capabilities capability
capable capac capacidad capacit capacities capacitor capacity cape capit capita capital capitalism
capitalist capitalize capitals capitol capped caps capsule capsules capt captain captcha caption
captions captivating captive captivity capture captured captures capturing cara caract caracter
caracteres caramel caratter caravan carb carbohydrate carbohydrates carbon carbonate carbs carc
carcin carcinoma card cardboard cardi cardiac cardiff cardinal cardinals cardio cardiovascular cards
care cared career careers careful carefully careg caregiver caregivers careless cares caret carey
carg carga cargar cargo caribbean caric caring carl carla carlo carlos carlson carlton carly carm
carmen carn carne carnegie carnival carol carolina caroline carolyn carousel carp carpenter carpet
carpets carr carrera carriage carrie carried carrier carriers carries carro carroll carrot carrots
carry carrying cars carson cart carta carte cartel carter cartesian cartoon cartoons cartridge
cartridges carts carve carved carving cary casa casc cascade case cases casey cash cashier casi
casing casino casinos caso casos cass cassandra cassette cassidy cast caste caster castillo casting
castle castro casts casual casually casualties casualty catal catalog catalogs catalogue catalyst
catast catastrophe catastrophic catch catcher catches catching catchy cate categor categoria
categorical categorie categories categorized category cater catering cath cathedral catherine
catholic catholics cathy cats cattle caught cauliflower caus causa causal cause caused causes
causing caut caution cautious cautiously caval cavaliers cavalry cave cavern caves cavity cctv cease
ceased cecil cedar ceil ceiling ceilings cela cele celebr celebrate celebrated celebrates
celebrating celebration celebrations celebrities celebrity celery celestial cell cellar celle
cellpadding cellphone cells cellspacing cellul cellular celsius celt celtic celtics celui celular
cement cemetery cena censor censorship census cent center centered centerpiece centers centr central
centralized centrally centre centres centrif centro centroid cents centuries century ceos ceramic
ceramics cerc cerca cere cereal cerebral ceremon ceremonial ceremonies ceremony cerr cert certain
certainly certains certainty certificate certificates certification certifications certified certify
certo cerv cervical cess cessation cette ceux cgcontext cgfloat cgpoint cgrect cgsize chac chad chai
chain chained chaining chains chair chaired chairman chairs chalk chall challeng challenge
challenged challenger challenges challenging cham chamber chambers chambre champ champagne champion
champions championship championships champs chan chance chancellor chances chand chandler chanel
chang change changed changer changes changing channel channels chant chanting chants chaos chaotic
chap chapel chapman chapter chapters chaque char character characteristic characteristics
characterization characterize characterized characters charcoal charg charge charged charger
chargers charges charging charisma charismatic charitable charities charity charl charles charleston
charlie charlotte charlottesville charm charming charms chars charset chart charter charts chase
chased chasing chassis chast chat chats chattanooga chatte chatter chatting chaud chauff chave
chavez cheap cheaper cheapest cheat cheated cheating cheats check checkbox checked checker checking
checklist checkout checkpoint checkpoints checks checksum cheek cheeks cheer cheerful cheering
cheers chees cheese cheeses cheesy chef chefs cheg chelsea chem chemical chemicals chemin chemistry
chemotherapy chen cheney cheng chennai cheque cher cherche cherish cherished cherokee cherry cheryl
ches chess chest chester chevrolet chevron chevy chew chewing chez chiar chic chica chicago chicas
chick chicken chickens chicks chief chiefly chiefs chiff child childbirth childcare childhood
childish children childs chile chili chill chilled chilling chilly chim chimney chin china chinese
chip chips chipset chir chiropr chloe chlor chloride chlorine chmod chocol chocolate chocolates
choice choices choir chois choisir choix choke choking chol cholesterol choose chooser chooses
choosing chop chopped chopping chops chor chord chords chore chores chorus chose chosen choses chow
chris christ christian christianity christians christie christina christine christmas christoph
christopher chrom chromat chrome chromium chromosome chromosomes chron chronic chronicle chronicles
chrono chronological chrysler chtml chuck chun chung chunk chunks church churches churchill churn
chute cialis ciclo cidade cider cient cigar cigarette cigarettes cincinnati cinco cindy cine cinema
cinemas cinemat cinematic cinnamon cipher ciphertext circ circa circle circles circuit circuits
circular circulated circulating circulation circum circumference circumstance circumstances circus
cisco cita citas citation citations cite cited cites cities citing citiz citizen citizens
citizenship citrus citt city ciudad civic civil civilian civilians civilization civilizations
civilized clad claim claimed claiming claims clair claire clam clamp clan clandest clang clans clap
clar clara clare clarence clarification clarified clarify clarity clark clarke clarkson claro clas
clase clases clash clashes class classe classes classic classical classics classification
classifications classified classifier classifiers classify classmates classname classroom classrooms
classy claude claudia claus clause clauses clave claw claws clay clayton clazz clean cleaned cleaner
cleaners cleaning cleanliness cleans cleanse cleansing cleanup clear clearance cleared clearer
clearfix clearing clearly clears clem clement clemson clen cler clergy clerk cleveland clever clic
clich click clickable clicked clicking clicks client cliente clientele clientes clients cliff
clifford cliffs clim climate climates climax climb climbed climbing climbs clin cling clinic
clinical clinically clinicians clinics clint clinton clip clipboard clipped clippers clipping clips
clique cljs cllocation cloak clock clocks clockwise clone cloned clones cloning clos close closed
closely closer closes closest closet closets closing closure closures clot cloth clothes clothing
cloud clouds cloudy clover cloves clown club clubhouse clubs clue clues cluster clustered clustering
clusters clutch clutter clyde cmap cmds cname cnbc coach coached coaches coaching coal coalition
coarse coast coastal coaster coastline coat coated coating coatings coats coax cobb cobra coca
cocaine coch cocina cock cockpit cocktail cocktails coco cocoa coconut cocos codable code codec
codecs coded coder codes codigo coding cody coef coeff coefficient coefficients coer coerc coff
coffee coffin cogn cognition cognitive cohen coherence coherent cohesion cohesive cohort cohorts
coil coils coin coinbase coinc coincide coincidence coined coins coisa coke cola colabor cold colder
cole coleg coleman coli colin coll collabor collaborate collaborated collaborating collaboration
collaborations collaborative collaborators collage collagen collaps collapse collapsed collapsing
collar collateral colle colleague colleagues collect collected collecting collection collections
collective collectively collector collectors collects colleg college colleges collegiate collide
collided collider collins collision collisions collo colo coloc cologne colomb colombia colombian
colon colonel colonial colonies colony color colorado colore colored colorful coloring colors
colossal colour coloured colourful colours cols colspan colt colts columbia columbus column columna
columnist columns coma comando comb combat combating combin combination combinations combine
combined combines combining combo combos combust combustion comcast come comeback comedian comedic
comedy coment comentario comentarios comenz comer comerc comercial comes comet comfort comfortable
comfortably comforting comforts comfy comic comics comida coming comm comma command commande
commanded commander commanders commanding commands commas comme commemor commemorate commenc
commence commenced commencement commend comment commentaire commentary commentator commentators
commented commenter commenting comments commerc commerce commercial commercially commercials
commission commissioned commissioner commissioners commissions commit commitment commitments commits
committed committee committees committing commod commodities commodity commodo common commonly
commonplace commons commonwealth commun communal commune communic communicate communicated
communicates communicating communication communications communicator communion communist communities
community commute commuter commuters commuting como comp compact compagn compan companies companion
companions company compar comparable comparative comparatively comparator compare compared comparer
compares comparing comparison comparisons compart compartir compartment compartments compass
compassion compassionate compat compatibility compatible compel compelled compelling compens
compensate compensated compensation compet compete competed competence competency competent
competing competit competition competitions competitive competitiveness competitor competitors
compil compilation compile compiled compiler compiling compl complain complained complaining
complains complaint complaints comple complement complementary complet completa completamente
complete completed completely completeness completes completing completion completo complex
complexes complexion complexities complexity compliance compliant complic complicated complication
complications complied compliment complimentary compliments comply complying component componente
components comport compos compose composed composer composers composing composite composition
compositions compost compound compounded compounds compr compra comprar compreh comprehend
comprehension comprehensive comprend compress compressed compression compressor comprise comprised
comprises comprising comprom compromise compromised compromises compromising comps compt compte
compuls compulsory comput computation computational computations compute computed computer computers
computes computing comrades comun comunic comunidad conan conc concat concaten concatenate conce
conceal concealed conced concede conceded conceivable conceive conceived concent concentr
concentrate concentrated concentrates concentrating concentration concentrations concept conception
concepts conceptual concern concerned concerning concerns concert concerts concess concession
concessions concise concl conclude concluded concludes concluding conclus conclusion conclusions
conco concord concrete concurrency concurrent concurrently concussion cond condem condemn
condemnation condemned condensed condi condiciones condition conditional conditioned conditioner
conditioning conditions condo condol condolences condom condominium condoms condos condu conduc
conducive conduct conducted conducting conductivity conductor conducts conduit cone conect conectar
cones conex conexion conf confeder confederate confer conference conferences confess confessed
confession confidence confident confidential confidentiality confidently config configs configur
configurable configuration configurations configure configured configuring confined confinement
confines confirm confirmation confirmed confirming confirms confisc confl conflic conflict
conflicting conflicts conform conforme conformity conforms confort confront confrontation confronted
confronting confuse confused confusing confusion cong congen congest congestion conglomer congo
congr congrat congratulate congratulations congreg congregation congress congressional congressman
conhe conj conject conjug conjunction conjunto conn conna connect connected connecticut connecting
connection connections connectivity connector connectors connects connexion connie connor conoc
conocer conosc conqu conquer conquered conquest conrad cons consc conscience conscient conscious
consciously consciousness conse consect consectetur consecutive consegu conseguir conseils consensus
consent consenting consequ consequat consequence consequences consequential consequently conserv
conservation conservative conservatives conserve consid consider considerable considerably
consideration considerations considered considering considers consist consisted consistency
consistent consistently consisting consists consolation console consoles consolid consolidate
consolidated consolidation conson consortium conspir conspiracy const constant constantin constantly
constants constellation constexpr constit constitu constituency constituent constituents constitute
constituted constitutes constitution constitutional constr constrain constrained constraint
constraints construct constructed constructing construction constructions constructive constructor
constructors constructs construed consul consult consulta consultancy consultant consultants
consultar consultation consultations consulted consulting consum consume consumed consumer consumers
consumes consuming consumo consumption cont conta contact contacted contacting contacto contacts
contador contag contagious contain contained container containers containing containment contains
contamin contaminants contaminated contamination contar contato conte contempl contemplate
contemplated contemplating contempor contemporary contempt conten contend contender contenders
contenido content contention contentious contents contenu contest contestant contestants contested
contests context contexto contexts contextual contiene contiguous contin continent continental
continents conting contingency contingent continu continua continual continually continuar
continuation continue continued continues continuing continuity continuous continuously continuum
contour contours contr contra contrace contraception contract contracted contracting contraction
contractor contractors contracts contractual contrad contradict contradiction contradictions
contradictory contrario contrary contrast contrasting contrasts contrat contrato contre contrib
contribut contribute contributed contributes contributing contribution contributions contributor
contributors contro control controle controlled controller controllers controlling controls
controvers controversial controversies controversy conv conven convenience convenient conveniently
convent convention conventional conventions conver converge convergence convers conversation
conversations converse conversely conversion conversions convert converted converter converters
convertible converting converts convex convey conveyed conveying conveyor convict convicted
conviction convictions convin convinc convince convinced convincing convo convolution convoy conway
cook cookbook cooked cooker cookie cookies cooking cooks cool coolant cooldown cooled cooler coolest
cooling coop cooper cooperate cooperating cooperation cooperative coord coorden coordin coordinate
coordinated coordinates coordinating coordination coordinator coords copa cope copenhagen copied
copies coping copp copper cops copy copying copyright copyrighted copyrights coral coraz cord cords
core cores corey corinth corinthians cork corn cornell corner corners cornerstone cornwall coron
corona coronary coronavirus coroutine corp corpo corpor corporate corporation corporations corps
corpse corpus corr corre correct correctamente corrected correcting correction corrections
corrective correctly correctness correl correlate correlated correlation correlations correo corres
correspond correspondence correspondent corresponding corresponds corridor corridors corro corrobor
corros corrosion corrupt corrupted corruption cors cort cortex cortical cortisol corvette cory cosa
cosas cose cosine cosm cosmetic cosmetics cosmic cosmos cosplay cost costa costco costing costly
costo costs costume costumes cosy cottage cotton couch cougar cough coul could couldn couleur coun
council councils counsel counseling counselling counselor counselors count countdown counted counter
counterfeit counterpart counterparts counters countertops counties counting countless countries
country countryside counts county coup coupe couple coupled couples coupling coupon coupons cour
courage courageous courier cours course courses coursework court courte courteous courtesy
courthouse courtney courtroom courts courtyard cous cousin cousins cout covariance cove covenant
cover coverage covered covering covers covert coveted covid coward cowboy cowboys cowork coworkers
cows cozy cppunit cpus crab crack crackdown cracked crackers cracking cracks craft crafted crafting
crafts craftsmanship craig craigslist cram cramped cran crane crank crap crappy crash crashed
crashes crashing crate crater crates crave craving cravings craw crawford crawl crawler crawling
cray craz crazy crea cread creado cream creams creamy crear creat create created creates creating
creation creations creative creatively creativity creator creators creature creatures cred
credential credentials credibility credible credit credited creditor creditors credits creds cree
creed creek creep creeping creepy cref crem creo cres cresc crescent crest crew crews cria crian
criar crib cricket cried cries crim crime crimea crimes criminal criminals crimson cris crises
crisis crisp crispy crist cristiano cristina crit criter criteria criterion critic critical
critically criticised criticism criticisms criticize criticized criticizing critics critique
critiques croatia croatian crochet crom cron crop cropped cropping crops crore cros crosby cross
crossed crosses crossing crossings crossorigin crossover crossword crow crowd crowded crowdfunding
crowds crown crowned cruc crucial crud crude cruel cruelty cruis cruise cruiser cruising crumbs
crunch crunchy crus crush crushed crusher crushers crushing crust cruz crying crypt crypto cryptoc
cryptocurrencies cryptocurrency cryst crystal crystall crystals csak csrf cstring ctor ctrl ctxt
ctype ctypes cual cuales cualquier cuando cuanto cuatro cuba cuban cube cubes cubic cubs cuck
cucumber cuda cudd cuenta cuer cuerpo cues cuff cuffs cuid cuis cuisine culinary culmination culo
culp culpa culprit cult cultiv cultivate cultivated cultivating cultivation cultura cultural
culturally culture cultured cultures cumberland cumbersome cumpl cumulative cunning cunningham cunt
cuomo cupboard cupcakes cupertino cupid cups curated curator curb cure cured curing curiosity
curious curl curled curlopt curls curly curr currencies currency current currently currents
curriculum curry curs curse cursed curses curso cursor cursos curt curtain curtains curtis curvature
curve curved curves cush cushion cushions cust custody custom customary customer customers
customizable customization customize customized customs cute cutoff cuts cutter cutting cyan cyber
cybersecurity cycl cycle cycles cyclic cycling cyclist cyclists cylinder cylinders cylindrical
cynical cynthia cypress cyprus cyril cyrus cyst cytok czas czech daar dabei daca daddy dado dados
dads daemon dagen dagger daha daher dahl daily dairy daisy dakota dalam dale dall dalla dallas dalle
dalton daly damage damaged damages damaging damascus dame damen damer dames damian damien damit damn
damned damon damp damping dams dana dance danced dancer dancers dances dancing dando dane dang
danger dangerous dangerously dangers dangling danh dani daniel danielle daniels danish dank danmark
dann danny dans dansk danske dante danych dapat dara darauf dare dared darf dari daring dark darker
darkest darkness darling darm darn darren dart darth darwin dash dashboard dashed dass data datab
database databases dataframe datagram datap datas dataset datasets datasource datastore datatype
date dated daten datensch dates datetime dati dating datings datingside datingsider dato datos datum
daughter daughters daunting dave david davidson davies davis davon dawn dawson daycare daylight days
daytime dayton daytona dazu dazz dazzling dbnull dcheck deactivate dead deadline deadlines deadly
deaf deal dealer dealers dealership dealing dealings deals dealt dean dear dearly death deaths
debate debated debates debating debbie debe deben deber debian debido debilitating debit deborah
debounce debris debt debtor debts debug debugger debugging debut debuted decad decade decades decals
decay dece deceased deceit deceive december decent decentral decentralized deception deceptive decid
decide decided decidedly decides deciding decimal decimals decipher decir decis decision decisions
decisive deck decking decks decl declar declaration declarations declare declared declares declaring
decline declined declines declining deco decode decoded decoder decoding decom decompiled
decomposition decor decorate decorated decorating decoration decorations decorative decorator
decorators decre decrease decreased decreases decreasing decree decrement decrypt decrypted dedic
dedicate dedicated dedication deduct deducted deductible deduction deductions deed deeds deem deemed
deep deepcopy deepen deeper deepest deeply deer default defaultdict defaults defaultstate defe
defeat defeated defeating defeats defect defective defects defence defend defendant defendants
defended defender defenders defending defense defenses defensive defer deferred deficiencies
deficiency deficient deficit deficits defin define defined defines defining definit definite
definitely definition definitions definitive deform deformation defs degli degradation degrade
degraded degree degrees dehydration dein deine deity deix deja dejar dejtings dela delaware delay
delayed delaying delays dele deleg delegate delegated delegates delegation delet delete deleted
deletes deleting deletion delhi deliber deliberate deliberately delic delicate delicious delight
delighted delightful delights delim delimiter deline deliver delivered deliveries delivering
delivers delivery dell della delle dello delt delta deluxe delve demand demande demanded demanding
demands demasi demean demeanor dementia demi demise demo democr democracy democrat democratic
democrats demographic demographics demol demolished demolition demon demons demonstr demonstrate
demonstrated demonstrates demonstrating demonstration demonstrations demos dend denen deng dengan
denial denied denies denim denis denise denmark denn denne dennis denom denomin denomination
denominator denote denotes dens dense densely densities density dent dental dentist dentro denver
deny denying depart departamento departed departing department departments departure depend
dependable depended dependence dependencies dependency dependent depending depends depict depicted
depicting depiction depicts depleted depletion deploy deployed deploying deployment deployments
depois deport depos deposit deposited deposition deposits depot depr deprecated depreci depreciation
depress depressed depressing depression depressive deprivation deprived deps dept depth depths
depuis deputies deputy deque dequeue derail derby dere derecho derechos dereg derek deren deriv
derivative derivatives derive derived derives deriving derm dermat dern dernier derog derrick
desarroll desarrollo desc descargar descend descendant descendants descended descending descent
descon descr describe described describes describing descricao descripcion description descriptions
descriptive descriptor descriptors desde dese desea deser deserialize desert deserted deserve
deserved deserves deserving design designate designated designation designed designer designers
designing designs desirable desire desired desires desk desks desktop desn desp despair desper
desperate desperately desperation despite despre dess dessa dessert desserts dest desta destabil
destac deste destin destination destinations destined destino destiny destroy destroyed destroying
destroys destruct destruction destructive destructor detach detached detail detailed detailing
details detained detal detalle detalles detect detected detecting detection detective detectives
detector detectors detects detention deter detergent deterior deterioration determin determinant
determination determine determined determines determining deterministic deton detox detr detrimental
detroit detta dette deus deut deutsch deutsche deutschen deutschland deux devant devast devastated
devastating devastation deve develop developed developer developers developing development
developmental developments develops dever devez deviation deviations device devices devil devils
devin devis devise devised devoid devon devote devoted devotion devuelve dexter deze dhabi dhcp
diabetes diabetic diablo diag diagn diagnose diagnosed diagnoses diagnosis diagnostic diagnostics
diagon diagonal diagram diagrams dial dialect dialog dialogs dialogue diam diameter diamond diamonds
diana diane diaper diapers diarr diarrhea diary dias diaz dice diced dich dicho dici dick dickens
dickinson dict dictate dictated dictates dictator dictatorship dictionaries dictionary didn didnt
died diego dien dies diese diesel diesem diesen dieser dieses diet dieta dietary diets difer
diferencia diferente diferentes diff differ differed difference differences different differential
differentiate differentiated differentiation differently differing differs diffic difficile
difficult difficulties difficulty diffuse diffusion dific digest digestion digestive digging digit
digital digitally digits dign dignity digs dijo dikke dilation dildo dile dilemma dilig diligence
diligent diligently dillon diluted dime dimension dimensional dimensions dimin diminish diminished
diminishing dimit dims dine diner dinero ding dinheiro dining dinner dinners dinosaur dinosaurs dint
dion dios dioxide dipl diplom diploma diplomacy diplomat diplomatic diplomats dipped dipping dips
dire direccion direct directed directing direction directional directions directive directives
directly director directorate directories directors directory directs direkt diret dirig dirk
dirname dirs dirt dirty disabilities disability disable disabled disables disabling disadv
disadvantage disadvantaged disadvantages disag disagree disagreement disagreements disappe disappear
disappearance disappeared disappearing disappears disappoint disappointed disappointing
disappointment disaster disasters disastr disastrous disbelief disc discard discarded discern
discharge discharged discipl disciple disciples disciplinary discipline disciplined disciplines
disclaim disclaimed disclaimer disclose disclosed disclosure disclosures disco discomfort disconnect
disconnected discontinued discord discount discounted discounts discour discourage discouraged
discourse discover discovered discoveries discovering discovers discovery discre discreet
discrepancies discrepancy discret discrete discretion discretionary discrimin discriminate
discrimination discriminator discriminatory discs discuss discussed discusses discussing discussion
discussions disdain dise disease diseases disen disfr disg disgr disgrace disguise disguised disgust
disgusting dish dishes dishonest dishwasher disk disks dislike disliked dislikes dismant dismiss
dismissal dismissed disney disneyland disorder disorders disp dispar disparate disparities disparity
dispatch dispatched dispatcher dispens dispenser dispers dispersed dispersion displaced displacement
display displayed displaying displays disple dispon disponible disponibles dispos disposable
disposal dispose disposed disposing disposit disposition dispositivo dispro disproportion
disproportionately disput dispute disputed disputes disreg disregard disrespect disrupt disrupted
disrupting disruption disruptions disruptive diss dissatisfaction disse dissect dissemination
dissent dissertation dissip dissolution dissolve dissolved dist distance distances distancia
distancing distant distilled distinct distinction distinctions distinctive distinctly distingu
distinguish distinguished distinguishing distint distort distorted distortion distr distra distract
distracted distracting distraction distractions distress distressed distrib distribut distribute
distributed distributes distributing distribution distributions distributor distributors district
districts distrust disturb disturbance disturbances disturbed disturbing ditch dive diver divergence
divers diversas diverse diversified diversion diversity diversos divert diverted dives divid divide
divided dividend dividends divider divides dividing divine diving divis divisible division divisions
divisor divor divorce divorced divul dixon dizzy django dmit dobr doch dock docker docking docks
docs doctor doctoral doctors doctr doctrine doctrines document documentaries documentary
documentation documented documenting documento documentos documents dodge dodgers doen does doesn
doesnt dogs doing dois doit doivent dojo dokument doll dollar dollars dolls dolor dolore dolphin
dolphins domain domaine domains dome domest domestic domic domicile domin domina dominance dominant
dominate dominated dominates dominating domination domingo dominic dominican dominion domino donald
donate donated donating donation donations donc donde done dong donn donna donne donner donor donors
donovan dont dood doom doomed door doors doorstep doorway dopamine doping dopo dorm dormant dorothy
dors dorsal dort dortmund dosage dose doses dossier dost dota dotenv dots dotted doub double doubled
doubles doubling doubt doubtful doubts douche doug dough douglas dout dove dover down downfall
downgrade downhill download downloadable downloaded downloader downloading downloads downright downs
downside downstairs downstream downtime downtown downturn downward doyle dozen dozens draco draft
drafted drafting drafts drag draggable dragged dragging dragon dragons drain drainage drained
draining drains drake dram drama dramas dramatic dramatically drank drastic drastically draw
drawable drawback drawbacks drawer drawers drawing drawings drawn draws dread dreaded dreadful dream
dreamed dreaming dreams dred drei dresden dress dressed dresser dresses dressing drew dried drift
drifting drill drilled drilling drills drink drinking drinks drip dripping driv drive driven driver
drivers drives driveway driving droit droits drone drones drop dropbox dropdown dropout dropped
dropping drops drought drove drown drowned drowning drug drugs drum drummer drums drunk drunken
drupal dryer drying dtype dual duas dubai dubbed dubious dublin duch duchess duck ducks duct dude
dudes duel dues duis duke dull duly dumb dummy dump dumped dumping dumps dumpster dumpsters duncan
dund dung dungeon dunk dunn duplex duplic duplicate duplicated duplicates duplication durability
durable durant durante duration durations durch durham during duro dusk dust dustin dusty dutch
duterte duties duty dvds dwar dwarf dwell dwelling dwight dwind dword dying dylan dynam dynamic
dynamically dynamics dynamo dynasty dysfunction dysfunctional dyst dzie dzieci dziew each eager
eagerly eagle eagles earl earlier earliest early earm earn earned earnest earning earnings earns
earrings ears earth earthly earthqu earthquake earthquakes ease eased easier easiest easily easing
east easter eastern easy eaten eater eating eaton eats ebay eben ebenfalls ebola ebony ebook ebooks
eccentric echo echoed echoes echt eclectic eclips eclipse ecological ecology ecommerce econ econom
economic economical economically economics economies economist economists economy ecosystem
ecosystems ecstatic ecuador edad eddie eden edgar edge edged edges edible edinburgh edison edit
editable editar edited editing edition editions editor editorial editors edits edmonton edmund
eduardo educ educate educated educating education educational educator educators edward edwards
edwin eens eeprom eerie eerste efect effect effected effective effectively effectiveness effects
effet effic efficacy efficiencies efficiency efficient efficiently effort effortless effortlessly
efforts efter egal eget eggs egypt egyptian egyptians eher eigen eigenen eigentlich eight eighteen
eighth eighty eina eine einem einen einer eines einf einfach eing einige einmal eins einsatz
einstein einz einzel eisen either eius eiusmod ejac ejaculation ejec eject ejemplo ejercicio elabor
elaborate elaine elapsed elast elastic elasticity elasticsearch elbow elbows elder elderly elders
eldest eldre eleanor elect elected election elections elective electoral electorate electr electric
electrical electricity electro electrode electrodes electroly electrom electromagnetic electron
electronic electronically electronics electrons eleg elegance elegant elek elem element elemental
elementary elemento elementos elements elems elena elephant elephants eles elev elevate elevated
elevation elevator eleven elias elic elif elig eligibility eligible elijah elim elimin eliminar
eliminate eliminated eliminates eliminating elimination elis elit elite elites elizabeth elkaar ella
ellas elle ellen eller elles elli ellie elliot elliott ellipse ellipt ellis ello ellos elon elong
elsa else elseif elsewhere elsif elucid elusive elves elvis email emailed emailing emails eman emanc
emanuel embar embargo embark embarked embarrassed embarrassing embarrassment embassy embed embedded
embedding embeddings embell ember emblem embod embodied embodies embodiment embodiments embody embr
embrace embraced embraces embracing embroidered embroidery embry embryo embryos emer emerald emerg
emerge emerged emergence emergencies emergency emerges emerging emerson emil emily emin eminent
emirates emiss emission emissions emit emits emitted emitter emitting emma emmanuel emmy emoc emoji
emojis emot emotion emotional emotionally emotions empath empathy emperor empez emph emphas emphasis
emphasize emphasized emphasizes emphasizing empir empire empirical emple empleado emploi employ
employed employee employees employer employers employing employment employs empower empowered
empowering empowerment empres empresa empresas empt emptied empty emulate emulator enable enabled
enables enabling enact enacted enam enamel encaps ench enchant enchanted enclave enclosed enclosing
enclosure encode encoded encoder encoding encompass encompasses encontr encontrado encontrar encore
encounter encountered encountering encounters encour encourage encouraged encouragement encourages
encouraging encrypt encrypted encryption enctype encuent encuentra encyclopedia endangered ende
endeavor endeavors endeavour ended endemic endereco endforeach endian endif ending endings endl
endless endlessly endors endorse endorsed endorsement endorsements endowed endpoint endpoints ends
endurance endure endured enduring endwhile enemies enemy ener energ energetic energia energies
energy enfants enfer enfermed enforce enforced enforcement enforcing enfrent engage engaged
engagement engagements engages engaging engel engine engineer engineered engineering engineers
engines engl england english engr engraved engulf enhance enhanced enhancement enhancements enhances
enhancing enim enjoy enjoyable enjoyed enjoying enjoyment enjoys enlarg enlarge enlarged enlargement
enlight enlightened enlightenment enlist enlisted enorm enorme enormous enormously enough enqu
enquanto enqueue enquiries enquiry enrich enriched enrichment enrique enrol enroll enrolled
enrollment ense ensemble ensl ensuing ensuite ensure ensured ensures ensuring entail entails entend
entender enter entered entering enterprise enterprises enters entert entertain entertained
entertaining entertainment entfer enth enthusi enthusiasm enthusiast enthusiastic enthusiasts
enticing entidad entire entirely entirety entities entitled entitlement entity entonces entr entra
entrada entrance entrances entrar entre entreg entrega entren entreprene entrepreneur
entrepreneurial entrepreneurs entrepreneurship entreprise entreprises entrev entries entropy
entrusted entry ents entsprech entwick entwicklung enum enumer enumerable enumerate enumeration
enumerator enums envelop envelope envelopes envi enviado enviar environ environment environmental
environmentally environments envis envision envisioned envoy envy enzym enzyme enzymes epic epid
epidemi epidemic epile epilepsy epis episcopal episode episodes epit epoch epochs epoxy epsilon
epstein epub equal equality equally equals equation equations equilibrium equip equipe equipment
equipments equipo equipos equipped equitable equity equiv equival equivalent equivalents erad
eradicate erase erased erdogan erect erected erectile erection erfahren erfol erfolgre erfolgreich
ergonomic erhalten eric erica erick erie erik erin ernest ernst eros erosion erot erotic erotik
erotische erotisk erotiske erre erreur errmsg errno erro errone erroneous error errores errors errs
erst erste ersten erupt erupted eruption escal escalate escalating escalation escap escape escaped
escapes escaping escol escort escorte escorted escorts escre escrit eskort eskorte eslint esos espa
espacio espan espec especial especially especialmente especific espect esper espera espn esports
espos esposa espresso essa essay essays esse essen essence essential essentially essentials essere
essex esta estaba estable establish established establishes establishing establishment
establishments estad estado estados estamos estar estas estate estates estava este esteem esteemed
esther estilo estim estimate estimated estimates estimating estimation estimator esto estonia estos
estoy estr estrogen estruct estud estudiantes estudio eternal eternity ethan ethanol ether ethereum
ethernet ethers ethi ethic ethical ethics ethiopia ethiopian ethn ethnic ethnicity ethos etiqu
etiquette etree etsy etter etwa etwas euch eugene euler euras euro europ europa europe european
europeans euros euth evac evacuated evacuation evade eval evalu evaluate evaluated evaluates
evaluating evaluation evaluations evaluator evan evangel evangelical evans evapor evel evelyn even
evening evenings evenly event eventdata evento eventos events eventual eventually ever everest
everett everlasting everton every everybody everyday everyone everything everytime everywhere
eviction evid evidence evidenced evident evidently evil evitar evoke evolution evolutionary evolve
evolved evolves evolving exacerb exact exactly exagger exaggerated exam examination examinations
examine examined examiner examines examining example examples exams excav excavation exce exceed
exceeded exceeding exceedingly exceeds excel excelente excell excellence excellent except exception
exceptional exceptionally exceptions excerpt excerpts excess excessive excessively exchange
exchanged exchanges exchanging excit excited excitement exciting excl exclaimed exclude excluded
excludes excluding exclus exclusion exclusive exclusively excursion excuse excuses exec execut
executable execute executed executes executing execution executions executive executives executor
executors exem exempl exemplary exemple exemplo exempt exemption exemptions exerc exercise exercised
exercises exercising exercitation exert exhaust exhausted exhausting exhaustion exhaustive exhib
exhibit exhibited exhibiting exhibition exhibitions exhibits exhilar exig exile exist existe existed
existence existential existing exists exit exited exiting exits exodus exon exotic expand expanded
expanding expands expans expansion expansions expansive expect expectancy expectation expectations
expected expecting expects exped expedition expelled expend expenditure expenditures expense
expenses expensive exper experi experience experienced experiences experiencia experiencing
experiment experimental experimentation experimented experimenting experiments expert expertise
experts expiration expire expired expires expiry expl explain explained explaining explains explan
explanation explanations explanatory explic explicit explicitly explo explode exploded exploding
exploit exploitation exploited exploiting exploits explor exploration explore explored explorer
explores exploring explos explosion explosions explosive explosives expo exponent exponential
exponentially export exported exporter exporters exporting exports expos expose exposed exposes
exposing exposition exposure exposures expr expres express expressed expresses expressing expression
expressions expressive expressly exquisite extend extended extending extends extension extensions
extensive extensively extent exterior extern external externally extinct extinction extingu extr
extra extract extracted extracting extraction extractor extracts extrad extraordin extraordinarily
extraordinary extras extravag extravagant extrem extreme extremely extremes extremist extremists
exxon eyeb eyebrow eyebrows eyed eyel eyes eyewitness ezek ezra fabric fabricated fabrication
fabrics fabs fabulous facade face facebook faced faces facet facets fach facial facil facile facilit
facilitate facilitated facilitates facilitating facilities facility facing fact faction factions
facto factor factorial factories factors factory facts factual factura facult faculties faculty fade
faded fades fading fahr fahrenheit fail failed failing fails failure failures faint fair faire
fairfax fairfield fairly fairness fairy fais fait faith faithful faithfully fake faker fakt falcon
falcons falk fall fallback fallen falling fallon fallout falls fals false falsely falta fame famed
famil familia familial familiar familiarity familie families famille family famine famous famously
fanatic fanc fancy fandom fang fans fant fantas fantasies fantast fantastic fantasy faqs fare fares
farewell fargo farm farmer farmers farmhouse farming farms farr farrell fart farther fasc fascinated
fascinating fascination fase fashion fashionable fashioned fast fasta faster fastest fasting fatal
fatalities fate father fathers fatigue fats fatt fatto fatty fauc faucet fault faults faulty fauna
faut faux favicon favor favorable favored favorite favorites favors favour favourable favourite
favourites fayette fazer fclose fear feared fearful fearing fearless fears feas feasibility feasible
feast feat feather feathers feats feature featured features featuring february fecha feder federal
federally federation fedora feed feedback feeder feeding feeds feel feeling feelings feels fees feet
fehler feld felipe felix feliz fell fellow fellows fellowship felony felt fema female females femin
feminine feminism feminist femme femmes fence fenced fences fencing fend feng ferd ferdinand
ferguson ferm ferment fermentation fermented fern fernandez fernando ferr ferrari ferry fert fertil
fertile fertility fertilizer ferv fest festival festivals festive festivities fetal fetch fetched
fetching fetish fetus feud fever fewer fflush fgets fiance fiat fiber fiberglass fibers fibonacci
fibr fibre fica fich fichier fick fict fiction fictional fidelity field fields fier fierc fierce
fiercely fiery fiesta fifa fifo fifteen fifth fifty fight fighter fighters fighting fights figsize
figur figura figure figured figures figuring fiji fila filament file filed filename filenames
filepath fileprivate files filesize filesystem filho filing filings filip filipino fill fille filled
filler filles filling fills film filme filmed filmer filmes filming filmm filmmaker filmmakers films
fils filt filter filtered filtering filters filthy filtr filtration filtro final finale finalist
finalists finalize finalized finally finals financ finance financed finances financial financially
financier financing finanzi finch find finde finden finder findet finding findings finds fine fined
finely finer fines finest fing finger fingerprint fingerprints fingers fingert fingertips finish
finished finishes finishing finite finland finn finnish finns fino fins fint fiona fior fire firearm
firearms firebase fired firefighter firefighters firefox fireplace fires firestore firewall
fireworks firing firm firma firmly firms firmware first firsthand firstly firstname fiscal fischer
fish fisher fisheries fishermen fishes fishing fiss fist fists fitness fits fitte fitted fitting
fittings fitz fitzgerald five fixation fixed fixes fixing fixme fixture fixtures fizz flag flagged
flags flagship flair flakes flam flame flames flaming flank flap flare flash flashed flashes
flashing flashlight flashy flask flat flats flatten flattened flattering flav flavor flavored
flavorful flavors flavour flavours flaw flawed flawless flaws flea fled flee fleece fleeing fleet
fleeting fleets flem fleming flere flesh fletcher flew flex flexibility flexible flick flickr flies
flight flights flint flip flipped flipping flips flirt flirting float floated floating floats flock
flood flooded flooding floods floor flooring floors flop floppy flor flora floral florence flores
florian florida flotation flour flourish flourishing flow flowed flower flowering flowers flowing
flown flows floyd fluct fluctuations fluent fluffy fluid fluids fluor fluores fluorescence
fluorescent fluoride flush flushed flushing flute flutter flux flyer flyers flying flynn fmap fname
foam focal focus focused focuses focusing foes foil fois fold folded folder folders folding folds
foley foliage folk folklore folks foll follic follow followed follower followers following follows
folly fonction fond fondo font fonts fontsize food foods fool fooled foolish fools foot footage
football footer footh footing footprint footsteps footwear fopen fora forall foram forb forbes
forbid forbidden forc force forced forces forcibly forcing ford fore foreach forecast forecasting
forecasts foreclosure forefront foregoing foreground forehead foreign foreigners foremost forensic
fores foresee foreseeable forest forestry forests forever forex forfe forg forge forged forget
forgetting forging forgive forgiven forgiveness forgiving forgot forgotten fork forks form forma
formal formally formas format formation formations formato formats formatted formatter formatting
forme formed former formerly formidable forming forms formul formula formulaire formulario formulas
formulate formulated formulation formulations forn forrest fors forsk fort forte forth forthcoming
fortified fortnite fortress forts fortunate fortunately fortune fortunes forty forum forums forward
forwarded forwarding forwards foss fossil fossils fost foster fostering foto fotograf fotos fought
foul found foundation foundational foundations founded founder founders founding fountain four
fourier fourn fours fourteen fourth fout fowler foyer fpga fprintf frac fract fraction fractional
fractions fracture fractured fractures frag frage fragen fragile fragment fragmentation fragmented
fragments fragrance frais fram frame framebuffer framed frames framework frameworks framing fran
franc franca france frances francesco franch franchise franchises francis francisco franco frank
franken frankfurt frankie franklin frankly frantic franz frase fraser frat fraternity frau fraud
fraudulent frauen fread freak freaking fred freddie freddy freder frederick free freed freedom
freedoms freeing freel freelance freelancer freely freeman frees freeway freeze freezer freezes
freezing frei freight frem fren french frente frenzy freopen freq frequ frequencies frequency
frequent frequently fres fresh freshly freshman freshmen freshness freshwater fresno fret freud
freund friction friday fridays fridge fried friedman friedrich friend friendly friends friendship
friendships fries fright frightened frightening fringe fritz frivol frog frogs from fron front
frontal frontend frontier frontline fronts frost frosting frowned froze frozen fruit fruitful
fruition fruits fruity frustr frustrated frustrating frustration frustrations frying fscanf fstar
fstring fuck fucked fucking fuel fueled fuels fuer fuera fueron fuji fukushima fulfil fulfill
fulfilled fulfilling fulfillment full fuller fullest fullname fullscreen fully fulton func funcion
funciona funciones funcs funct function functional functionalities functionality functioning
functions functools fund fundament fundamental fundamentally fundamentals funded funding fundraiser
fundraising funds funeral fung fungal fungi fungus funk funkc funktion funky funnel funny furious
furn furnace furnish furnished furnishings furniture furry further furthermore fury fuse fused
fusion fuss futile future futures futuristic futuro fuzz fuzzy fvector fwrite fxmlloader gaan gaat
gabri gabriel gadget gadgets gael gaga gain gained gaines gaining gains gala galactic galaxies
galaxy gale galer gall gallagher galleries gallery gallon gallons gamb gamble gambling game gameplay
gamer gamers games gaming gamle gamm gamma gand gandhi gang gangbang gangs ganz ganze gaps garage
garant garbage garcia gard garden gardening gardens gardner gareth garg garland garlic garment
garments garmin garn garner garnered garr garrett garten gary gases gasoline gast gastr gastric
gastro gastrointestinal gate gated gates gateway gather gathered gathering gatherings gathers gating
gauche gauge gaussian gaut gave gavin gays gaza gaze gazette gboolean gchar gdpr gdzie gear gearbox
geared gearing gears geben gebru gebruik gecko geek geen gefunden gegen gehen geht geil geile geld
gele gemacht geme gemeins gemini gems genau gender genders gene gener genera generado general
generalized generally generals generar generate generated generates generating generation
generations generator generators generic generosity generous generously genes genesis genetic
genetically genetics geneva genie genital genius genocide genom genome genomes genomic genotype
genre genres gens gent gente gentle gentleman gentlemen gently genu genuine genuinely genus geoff
geoffrey geographic geographical geography geological geom geometric geometry geopolitical georg
george georges georgetown georgia georgian gerade geral gerald gerard gere germ german germans
germany gerne gerr gerry gesch geschichte geschichten gest gestion gesture gestures getattr getaway
getchar getenv getglobal getline getopt gets getter getters gettext getting getty gezocht ghana
ghost ghosts gian giant giants gibbs gibi gibraltar gibson gibt gifs gift gifted gifts gigantic gigs
gilbert giles gill gilles gilt gimm gina ging ginger gint gioc giochi giorni giorno giov giovanni
girl girlfriend girlfriends girls gist github giul give giveaway giveaways given giver gives giving
glac glacier glaciers glad gladly glam glamorous glamour glance glanced gland glands glare glaring
glas glasgow glass glasses glazed glean gleich glen glenn glenum gles glfloat glfw glide glimps
glimpse glint glitch glitches glitter glob global globalization globally globals globe glock glor
gloria glorious glory gloss glossy glove gloves glow glowing gluc glucose glue glued gluint glut
gluten glyc glyph glyphicon gmail goal goalie goalkeeper goals goat goats gobierno goddess gode gods
godt goed goede goes goggles going gold goldberg golden goldman golf gomez gone gong gonna gonz
gonzalez good goodbye goodies goodman goodness goods goodwill goofy goog google goose gord gordon
gore gorge gorgeous gospel gossip gost goth gotham gothic goto gott gotta gotten gould gourmet
gouver gover govern governance governed governing government governmental governments governo
governor governors gown gpio gpointer gpus grab grabbed grabbing grabs grac grace graceful
gracefully gracias gracious grad grade graded grades gradient gradients grading grado grads gradu
gradual gradually graduate graduated graduates graduating graduation graf graffiti graft graham
grain grains gram gramm grammar grammy grams gran grand grandchildren granddaughter grande grandes
grandfather grandi grandma grandmother grandparents grands grandson granite granny grant granted
granting grants grap grape grapes graph graphene graphic graphical graphics graphite graphql graphs
gras grasp grass grassroots grat grate grated grateful gratis gratitude gratuit gratuita gratuite
gratuitement gratuites gratuito gratuits grav grave gravel graves gravid gravitational gravity gravy
gray grayscale graz grazing grease great greater greatest greatly greatness greece greed greedy
greek greeks green greene greenhouse greenland greens greenville greenwich greenwood greet greeted
greeting greetings greg gregg gregory gren grenade grep gret grew grey grid grids grief griev
grievances grieving griff griffin griffith grill grille grilled grim grimm grin grind grinder
grinding grip gripping grips gris grit gritty groceries grocery groom grooming groot groove gros
gross grosse grote grotes grou ground groundbreaking grounded grounding grounds groundwater
groundwork group groupe grouped grouping groups grove grow growers growing grown grows growth grpc
grub grues grund grunt grup grupo grupos gson guam guang guar guarante guarantee guaranteed
guarantees guard guarda guardar guarded guardian guardians guarding guards guatemala gubern guerr
guerra guerrero guess guessed guesses guessing guest guests guid guidance guide guided guideline
guidelines guides guiding guil guilayout guild guill guilt guilty guinea guinness guint guise guit
guitar guitarist guitars gujar gujarat gulf gulp gums gund gunn guns gupta gurl guru gust gusta
gusto gute guten gutenberg guth guts gutter guys gwen gypsum gyro gzip haar habe haben haber habil
habit habitat habitats habits habitual hablar hace hacen hacer hacia haciendo hack hacked hacker
hackers hacking hacks hadde hade hadn hague haha hail hailed hair haircut hairs hairst hairstyle
hairstyles hairy hait haiti hale haley half halftime halfway halifax hall hallmark halloween halls
halluc hallway halo halt halted halten halves hamas hamburg hamburger hamilton hamm hammer hammered
hammond hamp hampshire hampton hancock hand handbook handed handful handgun handheld handic handicap
handing handle handled handler handlers handles handling handmade hands handset handshake handsome
handwriting handwritten handy hang hanging hangs hank hann hanna hannah hanno hans hansen hanson
hanya happ happen happened happening happens happier happiest happily happiness happy haram
harassment harbor harbour hard hardcore hardcover harden hardened harder hardest harding hardly
hardness hardship hardships hardware hardwood hardy hare harga hari harlem harley harm harmed
harmful harming harmless harmon harmonic harmony harms harness harold harper harr harris harrison
harry harsh hart hartford harus harvard harvest harvested harvesting harvey hasan hasattr hash
hashed hashes hashing hashlib hashmap hashtable hashtag hashtags hasil hasn hass hassan hassle hast
hasta haste hastings hatch hate hated hateful hates hath hatred hats hatte hatten haul hauling haunt
haunted haunting haupt haus haut haute havana have haven having havoc hawai hawaii hawaiian hawk
hawkins hawks haya hayden hayes hazard hazardous hazards haze hazel hdmi head headache headaches
headed header headers heading headings headlights headline headlines headphone headphones
headquartered headquarters heads headset heal healed healer healing heals health healthcare
healthier healthy heap heaps hear heard hearing hearings hears heart heartbeat heartbreaking
heartfelt hearth hearts hearty heat heated heater heaters heath heather heating heats heav heaven
heavenly heavens heavier heavily heavy heavyweight hebben hebrew hebt hecho heck hect hectares
hectic hector hedge heed heeft heel heels hefty heidi height heightened heights hein heir heirs held
hele helen helena helf helfen helicopter helicopters helium hell heller hello helm helmet helmets
help helped helper helpers helpful helping helpless helps helsinki helt helvetica hely hemat
hemisphere hemos hemp hence hend henderson henne henri henrik henry hentai hepat hepatitis hera
herald heraus herb herbal herbert herbs herc hercules herd here hereby herein heritage herm herman
hermes hermione hern hernandez hero heroes heroic heroin heroine herpes herr herramient herrera hers
herself herz hesitant hesitate hesitation hess hete heter heterogeneous heterosexual heure heures
heuristic heute hexadecimal hezbollah hiatus hibernate hick hicks hidden hide hides hiding hier
hierarchical hierarchy higgins high higher highest highland highlands highlight highlighted
highlighting highlights highly highs highway highways hijo hijos hike hikes hiking hilar hilarious
hilfe hill hillary hills hilton himal himself hind hinder hindi hindsight hindu hinge hinges hint
hinted hinter hints hipp hippoc hips hire hired hires hiring hiro hispan hispanic hist histogram
histoire histor historia historian historians historic historical historically histories history
hitch hitler hits hitter hitters hitting hive hizo hjem hobbies hobby hoch hockey hodg hoff hoffman
hogan hogwarts hogy hoje hold holden holder holders holding holdings holds hole holes holiday
holidays holistic holl holland hollande hollow holly hollywood holmes holocaust holog holt holy
homage hombre hombres home homeland homeless homelessness homem homemade homeowner homeowners
homepage homer homes homeschool hometown homework homic homicide homme hommes homo homogeneous
homosex homosexual homosexuality hond honda honduras hone honest honestly honesty honey honeymoon
hong honolulu honor honorable honorary honored honoring honors honour honoured hood hoodie hoof hoog
hook hooked hooks hookup hoop hoops hoover hope hoped hopeful hopefully hopeless hopes hoping
hopkins hopping hops hora horas horde horizon horizontal horizontally horm hormonal hormone hormones
horn horns horny horr horrible horribly horrific horrifying horror horrors hors horse horsepower
horses hort horton hose hoses hosp hospital hospitality hospitalized hospitals host hostage hosted
hostel hostile hostility hosting hostname hosts hotel hotels hotline hotspot hott hotter hottest
hour hourly hours hous house housed household households houses housing houston hover hovered
hovering howard howe howell however href hresult html htmlelement htmlentities htmlspecialchars
htons http https huang huawei hubb hubbard hubby hubs huck hudson hues huff huffington huge hugely
hugged hugh hughes hugo hugs huis hulk hull hulu human humane humanitarian humanities humanity
humano humans humb humble humid humidity humili humiliation humility humming humor humorous humour
humph hund hundred hundreds hung hungarian hungary hunger hungry hunt hunted hunter hunters hunting
huntington hunts hurd hurdle hurdles hurricane hurricanes hurried hurry hurt hurting hurts husband
husbands huss hussein hust hustle hutch hvac hvad hver hvis hvor hvordan hwnd hybrid hybrids hyde
hyderabad hydr hydra hydrated hydration hydraulic hydro hydrogen hygiene hype hyper hyperlink hypers
hypert hypertension hypnot hypo hypoc hypocrisy hypoth hypotheses hypothesis hypothetical hyster
hyundai iboutlet ibrahim iceberg iceland icing icollection icommand icon iconfiguration iconic icons
idade idaho idata idea ideal ideally ideals ideas ident identical identifiable identification
identified identifier identifiers identifies identify identifying identities identity ideological
ideology idictionary idiot idiots idisposable idle idol idols ieee ientity ienumerable ienumerator
ierr iets iface iframe igen ignite ignition ignor ignorance ignorant ignore ignored ignores ignoring
igor igual ihnen ihre ihrem ihren ihrer ihttp ikea ikke ilist illeg illegal illegally illicit
illinois illness illnesses illum illumin illuminate illuminated illumination illusion illusions
illustr illustrate illustrated illustrates illustrating illustration illustrations illustrator ilma
ilogger imag image imagem imagen imagery images imagin imaginable imaginary imagination imaginative
imagine imagined imaging imagining imam imbalance imdb imessage imgs imitation immature immediate
immediately immense immensely immer immersed immersion immersive immigr immigrant immigrants
immigration imminent immobil immoral immortal immun immune immunity immutable impact impacted
impactful impacting impacts impair impaired impairment impart impartial impatient impe impeachment
impecc impeccable imped impedance impending imper imperative imperfect imperial imperson impl
implant implanted implants implement implementation implementations implemented implementing
implements implic implicated implication implications implicit implicitly implied implies implode
imply implying import importance important importante importantes importantly imported importer
importing imports impose imposed imposing imposs impossible impost impover impr impres impress
impressed impression impressions impressive imprimir imprint imprison imprisoned imprisonment impro
improbable improper improperly improv improve improved improvement improvements improves improving
improvis impuls impulse impulses inability inaccessible inaccur inaccurate inactive inadequate
inadvert inadvertently inappropriate inaug inaugur inaugural inauguration inbound inbox incap
incapable incapac incarcer incarcerated incarceration incarn incarnation incent incentiv incentive
incentives inception incess incest inch inches incid incidence incident incidental incidents
incididunt incl inclination inclined includ include included includes including inclus inclusion
inclusive incluso incom income incomes incoming incompatible incompet incompetent incomplete incon
incons inconsist inconsistent incontr incontri incontro inconvenience inconvenient incor incorpor
incorporate incorporated incorporates incorporating incorporation incorrect incorrectly incr incre
increase increased increases increasing increasingly incred incredible incredibly increment
incremental increments incub incumb incumbent incur incurred inde indeb indebted indeed indef
indefinite indefinitely indem indemn indent indentation independ independence independent
independently index indexed indexes indexing india indian indiana indianapolis indians indic indica
indicate indicated indicates indicating indication indications indicative indicator indicators
indice indices indict indicted indictment indie indies indifferent indigenous indign indirect
indirectly indis indispens indispensable indiv individ individual individually individuals indo
indones indonesia indonesian indoor indoors inds indu induce induced induces inducing induction
indul indulge industri industrial industries industry indx indy ineff ineffective inefficient
inequalities inequality inert inertia inet inev inevitable inevitably inex inexp inexpensive
inexperienced infamous infancy infant infantry infants infect infected infection infections
infectious infer inference inferior inferred infertility infile infiltr infiltration infinit
infinite infinitely infinity infl inflamm inflammation inflammatory inflatable inflate inflated
inflater inflation inflicted influ influence influenced influencers influences influencing
influential influenza influx info infographic inform informal informat informatie information
informational informationen informations informative informed informing informs infos infr infra
infragistics infrared infrastructure infring infringement infused infusion ingen ingenious ingest
ingestion ingin ingl ingr ingredient ingredients ingres ingresar ingress inhab inhabit inhabitants
inhabited inhal inher inherent inherently inherit inheritance inherited inherits inhib inhibit
inhibited inhibition inhibitor inhibitors inici inicial iniciar inicio init initi initial initialise
initialization initialize initialized initializer initializes initializing initially initials
initiate initiated initiating initiation initiative initiatives inject injectable injected injecting
injection injections injector injunction injured injuries injury injust injustice inkl inland inlet
inline inmate inmates innate inne inner inning innings innoc innocence innocent innov innovate
innovation innovations innovative inoc inode inorder inplace input inputs inquire inquiries inquiry
insan insane insanely insanity inscription inse insect insects insecure insecurity insensitive inser
insert inserted inserting insertion inserts inset insets inside insider insiders insight insightful
insights insign insignificant insist insisted insisting insists insol insomnia insp inspect
inspected inspection inspections inspector inspectors inspir inspiration inspirational inspire
inspired inspires inspiring inst instability instagram instal install installation installations
installed installer installing installment installs instance instanceof instances instancia instant
instantaneous instantiate instantiated instantly instead instinct instincts instit institut
institute instituted institutes institution institutional institutions instituto instr instruct
instructed instruction instructional instructions instructor instructors instrument instrumental
instrumentation instruments insufficient insulated insulation insulin insult insulting insults
insurance insure insured insurer insurers insurg intact intake inte integ integer integers integr
integral integrate integrated integrates integrating integration integrity intel intelig intellect
intellectual intellectually intelli intellig intelligence intelligent intend intended intending
intends intens intense intensely intensified intensity intensive intent intention intentional
intentionally intentions intents inter interact interacting interaction interactions interactive
interacts intercept intercepted interception interceptions interceptor interchange interchangeable
interconnected intercourse interdisciplinary interes interess interesse interest interested
interesting interestingly interests interf interface interfaces interfer interfere interference
interfering interim interior interiors intermedi intermediary intermediate intermitt intermittent
intern internacional internal internally international internationally internet interns internship
interoper interp interpersonal interpol interpolate interpolation interpre interpret interpretation
interpretations interpreted interpreter interpreting interracial interrog interrogation interrupt
interrupted interruption interruptions interrupts intersect intersection intersections intersects
interstate intertw intertwined interv interval intervals interven intervene intervention
interventions interview interviewed interviewer interviewing interviews intest intestinal intestine
intim intimacy intimate intimately intimid intimidated intimidating intimidation intl into intoler
intolerance intox intoxic intptr intr intra intric intricate intrig intrigue intrigued intriguing
intrinsic intro introdu introduce introduced introduces introducing introduction introductory intros
intrusion intrusive ints intuit intuition intuitive intval inund invade invaded invading inval
invalid invalidate invaluable invariably invariant invasion invasive inve invent invented invention
inventions inventive inventor inventory invers inverse inversion invert inverted invest invested
investig investigate investigated investigates investigating investigation investigations
investigative investigator investigators investing investment investments investor investors invis
invisible invit invitation invitations invite invited invites inviting invo invocation invoice
invoices invoke invoked invokes invokevirtual invoking invol involve involved involvement involves
involving inward ioctl ioerror ioexception ionic ions ioutil iowa ipad ipairs iphone ipsum
iqueryable iran iranian iraq iraqi ireland irene irepository irequest irgend iris irish iron ironic
ironically irony irradi irrational irre irregular irrelevant irres irresist irresistible
irrespective irresponsible irreversible irrig irrigation irrit irritated irritating irritation
irvine irving isaac isabel isaiah isbn ischem isempty iservice isin isinstance isis islam islamabad
islamic islamist island islanders islands isle isles isnt isol isolate isolated isolation isot
israel israeli israelis isset isso issu issuance issue issued issuer issues issuing istanbul ital
italia italian italiana italiani italiano italic italy itch itching item items itens iter iterable
iterate iteration iterations iterative iterator itertools itinerary itself iuser ivan ivory jaar
jack jacket jackets jackie jackpot jackson jacksonville jacob jacobs jacqueline jacques jade jadx
jaguar jaguars jahr jahre jahren jahres jail jailed jaime jain jakarta jake jako jama jamaica jamais
james jamie jams jane janeiro janet january janvier japan japanese japon jardin jared jars jasmine
jason jasper jaune java javafx javascript javax javier jaws jaxb jaxbelement jays jazz jbutton jdbc
jealous jealousy jean jeans jede jedem jeden jeder jedi jedis jednak jedoch jeep jeff jefferson
jeffrey jego jehovah jelly jemand jenis jenkins jenn jenna jenner jennifer jennings jenny jens
jensen jente jenter jeopard jeremiah jeremy jerk jerome jerry jersey jerseys jerusalem jess jesse
jessica jessie jest jesus jeszcze jets jetzt jeune jeunes jeux jewel jewellery jewelry jewels jewish
jews jframe jian jiang jihad jika jill jimmy jing jinping jint jitter jlabel jnicall joan joanna
jobject jobs joel joey jogador jogging jogo johan johann johannes johannesburg john johnny johns
johnson johnston join joined joining joins joint jointly joints joke joked joker jokes joking jonah
jonas jonathan jones jong joomla jord jordan jorge jorn jose josef joseph josh joshua jouer joueur
jour journal journalism journalist journalists journals journey journeys jours joven joyce joyful
joys joystick jpanel jpeg jquery jsimport json jsonarray jsonexception jsonify jsonobject jspb
jtable jtext juan juda judaism jude judge judged judgement judges judging judgment judgments
judicial judiciary judith judy juego juegos juga jugador jugar jugend juice juices juicy juin juli
julia julian julie julien juliet julio julius july jumlah jump jumped jumper jumping jumps junction
june jung junge jungle juni junior junit junk junto jupiter jurassic juris jurisdiction
jurisdictions jury jusqu just juste justice justification justified justify justin justo juven
juvenile juventus juxtap kabul kadar kafka kaiser kako kale kali kami kamp kamu kane kang kann
kannst kans kansas kant kanye kaplan kapoor kara karachi karakter kardash kardashian kare karen
karena karl karma karn karnataka kart kash kashmir kata kate kath katherine kathleen kathryn kathy
katie katrina katy katz kauf kaufen kaum kawasaki kayak kazakhstan kcal keen keep keeper keeping
keeps keer kein keine keinen keith kell keller kelley kelly kelvin kemp kend kendall kendrick kenn
kennedy kennen kennenlernen kenneth kenny kens kensington kent kentucky kenya kepada kept kerala
keras kern kernel kernels kerr kerry keto ketogenic kettle kevin keyboard keyboards keyed keynes
keynote keyof keypad keys keystone keyword keywords khal khan kick kicked kicker kicking kickoff
kicks kickstarter kidd kidding kidn kidnapped kidnapping kidney kidneys kids kiev kijken kill killed
killer killers killing killings kills kilograms kilomet kilometers kilometres kimber kimberly kinase
kind kinda kinder kindergarten kindle kindly kindness kinds kinect kinetic kinetics king kingdom
kingdoms kings kingston kinky kino kirby kirk kirst kiss kissed kisses kissing kita kitchen kitchens
kite kits kitten kittens kitty klar klass klaus klein kleine kleinen klient klik kling klopp klub
knack knee knees knew knex knicks knife knight knights knit knitting knives knob knobs knock knocked
knocking knockout knocks knot knots know knowing knowingly knowledge knowledgeable known knows knox
knoxville knull kobe koch kode kodi koje koji kole kolej kolkata komb komen komm kommen komment
kommer kommt kommun komple komt kond kone kong konk konnte kont kontakt kontakte kontrol kore korea
korean kort kosher kosovo kost kosten kostenlos kostenlose kota kotlin kotlinx kraft krak kramer
krank krat kremlin krij kris krishna krist kristen kron kter kuala kube kubernetes kullan kumar kund
kunden kunne kunnen kunst kunt kurd kurdish kurs kurt kurz kush kuwait kvin kvinder kvinn kvinne
kvinner kvinnor kwargs kyle kylie kyoto laat label labeled labeling labelled labels labor
laboratories laboratory labore labour labrador labs labyrinth lace lack lacked lacking lacks lact
ladder laden ladies lado lady lafayette lage lager lagi lagos laguna lahore laid lain laisse lake
lakers lakes lakh lama lamar lamb lambda lambert lame lament lamin laminate lamp lamps lana lanc
lancaster lance land landed landfill landing landlord landlords landmark landmarks lands landsc
landscape landscapes landscaping lane lanes lang lange langs langu language languages langue lanka
lans lansing lantern lanz laos laps lapse laptop laptops lara laravel larg large largely larger
largest largo larry lars larson larvae laser lasers lash lashes lassen last lasted lasting lastly
lastname lasts latch late lateinit lately laten latency latent later lateral latest latex latin
latina latino latitude latter lattice latvia laud lauderdale laugh laughed laughing laughs laughter
launch launched launcher launches launching laundering laundry laur laura laure laurel lauren
laurent laurie laut lava lavender lavish lavor lavoro lawful lawmakers lawn lawrence laws lawson
lawsuit lawsuits lawyer lawyers layer layered layers laying layoffs layout layouts lays layui lazar
lazy ldap lead leader leaderboard leaders leadership leading leads leaf leafs league leagues leah
leak leakage leaked leaking leaks lean leaned leaning leap leaps lear learn learned learner learners
learning learns learnt lease leased leases leash leasing least leather leave leaves leaving lebanese
lebanon leben lebens lebih lect lecture lecturer lectures ledger leds leeds leer left leftover
leftovers legacy legal legality legalization legalized legally legend legendary legends leggings
legion legis legisl legislation legislative legislators legislature legit legitim legitimacy
legitimate legitimately lego legs lehet lehr leia leicester leicht leider leigh leipzig leisure
lekker lemma lemon lena lend lender lenders lending lends leng lenght length lengths lengthy lenin
lennon lenovo lens lenses lent leon leonard leonardo leone leopard lept lesb lesbian lesbians
lesbisk lesen lesion lesions leslie less lessen lesser lesson lessons lest lester leth lethal letra
letras lets lett letter letters letting letto lettre lettuce letz letzten leuk leukemia leur leurs
leve level leveling levels leven lever leverage leveraging levi levin levine levitra levy lewis
lexer lexical lexington lexus lgbt lgbtq lgpl liabilities liability liable liaison liam liar libc
liber liberal liberals liberated liberation liberia libero libert liberties liberty libido libr
librarian libraries library libre libro libros libs libya licence licences license licensed licenses
licensing licensors licht lick licking licz lider lids liebe lied lief liegt lien lies lieu
lieutenant life lifecycle lifelong lifes lifespan lifestyle lifestyles lifetime lift lifted lifting
lifts liga light lighten lighter lighting lightly lightning lights lightweight lign ligne like liked
likelihood likely likeness likes likewise liking lille lilly lily lima limb limbs limburg lime
limestone limit limitation limitations limite limited limiting limitless limits limp lincoln lind
linda linden lindsay lindsey line linea lineage linear lineback linebacker lined linen liner liners
lines linestyle lineup linewidth ling linger lingerie lingering lingu linguistic linha lining link
linkage linked linkedin linker linking links lint linux lion lionel lions lipid lips lipstick liqu
liquid liquidity liquids liquor lire lisa lisbon lisp list lista listar liste listed listen listened
listener listeners listening listens listing listings lists lite litecoin liter literacy literal
literally literals literary literature liters lith lithium lithuania litigation litre litres litt
litter little live lived livelihood lively liver liverpool lives livest livestock living livingston
livre livro llam llama lleg llegar llen llev llevar lloyd llvm lname load loaded loader loaders
loading loads loaf loan loans lobby lobbying lobster local locale locales localhost locality
localization localized locally locals locate located locating location locations locator loch lock
lockdown locke locked locker locking locks locksmith locom locus lodash lodge lodged lodging loft
lofty logan logarith logfile logged logger logging logic logical logically login logistic logistical
logistics logits logo logos logout logs loin lois lokal lokale loki lola lomb lombok lond london
lone loneliness lonely long longer longest longevity longing longitud longitude longitudinal
longstanding longtime look looked looking lookout looks lookup looming loop looph looping loops loos
loose loosely loosen loot lopez lord lords lore lorem loren lorenzo lori loro lors lorsque lose
loser losers loses losing loss losses lost lotion lots lottery lotto lotus loud louder loudly louis
louise louisiana louisville loung lounge love loved lovely lover lovers loves loving lowe lowell
lower lowercase lowered lowering lowers lowest lows loyal loyalty lparam lubric luca lucas lucia
lucifer luck luckily lucky lucr lucrative lucy ludwig luego luft lugar lugares luggage luigi luis
luke lumber lumia lumin lump lumpur luna lunar lunch lunches lund lung lungs lure lurking lush lust
luther lutheran luxe luxembourg luxurious luxury lydia lyft lying lyme lymph lynch lynn lyon lyons
lyric lyrics maar maced macedonia mach machen machine machinery machines machining macht mack macro
macron macros macy madagascar madame madd madden made madison madness madonna madre madrid maduras
maduro mafia magazine magazines mage magento maggie magic magical magically magician magma magn
magna magnesium magnet magnetic magnets magnificent magnitude magnum magnus mahar maharashtra mahm
maid maiden mail mailbox mailed mailing mails main maine mainland mainly mains mainstream maint
maintain maintained maintaining maintains maintenance maintenant maior mais maison maize majestic
majesty major majority majors maka make maken makeover maker makers makes makeup making maks malaria
malay malays malaysia malaysian malcolm male males malformed malfunction mali malicious malign
malignant malik mall malloc malls malone malt malta malware mama maman mamm mamma mammals mana
manage manageable managed management manager managerial managers manages managing manchester mand
mandarin mandate mandated mandates mandatory mandela mane manera maneuver mang manga manganese mange
mango manhattan manic manifest manifestation manifestations manifested manifesto manifests manifold
manila manip manipulate manipulated manipulating manipulation manit manitoba mankind mann mannen
manner manners manning manny mano manoe manor manos manpower mans mansion mant manten mantener
mantle mantra manual manually manuals manuel manufact manufacture manufactured manufacturer
manufacturers manufactures manufacturing manus manuscript manuscripts many mapa maple mapped mapper
mapping mappings maps mara marathon marble marc marca marcel march marched marches marching marco
marcos marcus mare marg margaret margin marginal marginalized margins mari maria mariage marian
marie marijuana marilyn marin marina marine mariners marines marino mario marion marital maritime
mark markdown marked markedly marker markers market marketed marketer marketers marketing
marketplace markets marking markings marks markt markup markus marl marque marr marriage marriages
married marriott marrow marry marrying mars marseille marsh marshal marshall mart martha martial
martin martinez martins marty martyr marvel marvelous marvin marx mary maryland marzo masa masc
mascara mascot mascul masculine mash mashed masih mask masked masking masks mason mass massa massac
massachusetts massacre massage massages massasje masse masses massive massively mast master mastered
mastering masterpiece masters mastery mastur masturb masturbation mata match matched matcher matches
matching matchmaking matchup mate mater materia material materially materials maternal maternity
mates math mathematic mathematical mathematics mathf maths mating matlab matplotlib matrices
matrimon matrix matriz mats matt matte matter mattered matters matth matthew matthews matthias
mattress mattresses mature maturity maui maur maurice maven maver mavericks maxi maxim maximal
maximize maximizing maximum maxlength maxwell maya maybe mayer mayo mayor mayores mazda maze mbps
meadow meadows meal meals mean meaning meaningful meaningless meanings means meant meantime
meanwhile meas measurable measure measured measurement measurements measures measuring meat meats
mech mechan mechanic mechanical mechanically mechanics mechanism mechanisms medal medals medi media
medial median mediante mediated mediatek mediation mediator medic medicaid medical medically
medicare medication medications medicinal medicine medicines medida medidas medieval medina medio
mediocre medios meditation mediterr mediterranean medium mediums meds meer meet meeting meetings
meets meetup mega megan meget meghan mehr meiden meille meilleur meilleure meilleurs mein meine
meinem meinen meiner meio meis meisje meisjes meisten mejor mejorar mejores melakukan melan melanch
melanie melbourne meld melee melhor melhores melissa mell mellon melod melodies melody melt meltdown
melted melting melts memb member members membership memberships membr membrane membranes membres
membuat memcpy meme memes memiliki memo memoir memor memorable memorandum memoria memorial memories
memory memphis memset menace menc mend meng menggunakan mening menj menjadi menn mennes meno menor
menos mens mensagem mensaje mensajes menschen mensen menstrual ment mental mentality mentally mente
mention mentioned mentioning mentions mentor mentoring mentors mentre menu menus meny merc mercado
mercedes mercer merch merchandise merchant merchantability merchants mercury mercy mere meredith
mereka merely merg merge merged merger merges merging merit merits merkel merlin merr merrill merry
merupakan mesa meses mesh meshes mesma mesmer mesmo mess message messages messaging messed messenger
messi messiah messing messy mest mesure meta metab metabol metabolic metabolism metadata metal
metall metallic metals metam metaph metaphor metast metav metavar meteor meter meters meth methane
method methodist methodologies methodology methods methyl meticulous meticulously metod metodo metre
metres metric metrics metro metropolitan metros mets mettre mexican mexico meyer miami mice mich
micha michael michaels miche michel michele michelle michigan mick mickey micro microbes microbi
microbial micron microphone microscope microscopic microscopy microsoft microsystems microwave midd
middle middleton middleware midfield midfielder midi midlands midnight midpoint midst midway midwest
miejsc mientras mies miesz mieux might mighty migli miglior migliori migr migraine migrant migrants
migrate migrated migrating migration migrations miguel mijn mike milan milano mild mildly mile
mileage miles milestone milestones milf milieu milit militant militants militar military militia
milk mill millennials millennium miller milling million millionaire millionen millions millis
milliseconds millones mills milo milton milwaukee mime mimic minced mind minded minden mindful
mindfulness minds mindset mine minecraft mined miner mineral minerals miners mines ming mingle minh
minha mini miniature minib minim minimal minimalist minimise minimize minimized minimizing minimum
mining minist minister ministers ministries ministry minlength minneapolis minnesota minor
minorities minority minors mins mint minus minut minute minuten minutes minutos mirac miracle
miracles miraculous mirage miranda mirror mirrored mirrors misc miscar miscellaneous miscon
misconception misconduct misdemeanor mise miser miserable misery misguided mish misinformation
misleading mism misma mismatch mismo misog misplaced miss missed misses missile missiles missing
mission missionaries missionary missions mississippi missouri mist mistake mistaken mistakenly
mistakes mister mistr mistress misunder misunderstand misunderstanding misunderstood misuse mitar
mitarbeiter mitch mitchell mitig mitigate mitigation mitochond mitochondrial mits mitsubishi mitt
mixed mixer mixes mixing mixture mkdir mmap mnemonic mnie mobil mobile mobility mobs mock mocked
mocking mockito mocks moda modal mode model modele modeled modeling modelling modelo modelos models
modem moden moder moderate moderated moderately moderation moderator moderators modern moderne modes
modest modi modific modificar modification modifications modified modifier modifiers modifies modify
modifying modne modo mods modular modulation module modules modulo modulus moet moeten mogelijk
mohamed mohammad mohammed moines moins mois moist moistur moisture mojo mold molded molding molds
mole molecular molecule molecules molest moll molly molt molto moment momento momentos moments
momentum mommy moms mona monaco monad monarch monarchy monastery mond monday mondays monde mondo
monet monetary money mong mongo mongodb mongolia mongoose monica monitor monitored monitoring
monitors monk monkey monkeys monks mono monoc monopol monopoly monot monroe mons monsanto monster
monsters monstr monstrous mont montage montana monte monter monterey montgomery month monthly months
montreal monument monumental monuments mood moodle moody mooie moon moons moor moore moose moot
moral morale morales morality morally morals moran morb more moreno moreover morg morgan mori mormon
morning mornings moroccan morocco morph morphology morr morris morrison morse mort mortal mortality
mortar mortgage mortgages morton mosaic moscow moses mosque mosquito mosquitoes moss most mostly
mostr mostra mostrar mote motel moth mother motherboard mothers motif motifs motion motions motiv
motivate motivated motivating motivation motivational motivations motive motives motivo moto motor
motorcycle motorcycles motorists motorola motors mots motto mould mound mount mountain mountains
mounted mounting mounts mour mourinho mourn mourning mouse mouth mouths movable move moved movement
movements mover movers moves movie movies movimiento moving mower moyen mozart mozilla mpeg mqtt
msgs msnbc much muchas mucho muchos muddy mueller muestra muff muhammad muit muito mujer mujeres
mulher mulheres mull mult multer multi multic multicast multicultural multid multif multiline multim
multimedia multin multinational multip multipart multiplayer multiple multiples multiplic
multiplication multiplied multiplier multiply multiplying multiprocessing multis multit multitude
mumbai munch mund mundane mundial mundo munich municip municipal municipalities municipality mural
murder murdered murderer murdering murderous murders murm murphy murray muscle muscles muscular muse
museum museums mush mushroom mushrooms music musica musical musician musicians musik musique musk
muslim muslims muss must mustang mustard muster mutable mutant mutants mutate mutated mutation
mutations mute muted mutex mutil mutual mutually muzzle myanmar mycket myers myocard myriad myself
mysql mysqli myst myster mysteries mysterious mystery mystic mystical myth mythical mythology myths
naam naar nach nachricht nacht nacional nack nada nadu nagar nail nailed nails nairobi naive najle
naked naken nakne nale nama name named namely namen nameof names namespace namespaces naming namoro
nancy nand nanny nano nanop nanoparticles naomi naples napoleon napoli narc narciss narendra nargin
nargs narr narration narrative narratives narrator narrow narrowed narrower narrowing narrowly
naruto nasa nasal nascar nash nashville nass nast nasty natal natalie natasha nate nath nathan
nation national nationalism nationalist nationality nationally nationals nations nationwide native
natives nato natur natural naturally nature natuur naughty nause nausea naval navbar nave naveg
navegador navig navigate navigating navigation navigator navy nawet nazi nazis ncaa ndarray neal
near nearby nearer nearest nearing nearly neat neatly neben nebraska neces necesario necesita necess
necessarily necessary necessities necessity neck necklace neckline nederland need needed needing
needle needles needless needs needy negate negative negatively negatives negativity neglect
neglected neglig negligence negligent negligible negoci negocio negotiate negotiated negotiating
negotiation negotiations negro nehmen neigh neighbor neighborhood neighborhoods neighboring
neighbors neighbour neighbourhood neighbouring neighbours neil neither nell nella nelle nelson
neoliberal neon nepal neph nephew neptune nerd nero nerv nerve nerves nervous ness nest nesta neste
nested nesting nestled nests netanyahu netflix netherlands nets nett nettsteder network networking
networks netz neue neuen neuken neur neural neuro neurological neuron neuronal neurons neurop
neuroscience neurotrans neut neutr neutral neutrality neutron nevada never nevertheless neville
newark newbie newborn newcastle newcom newcomer newcomers newer newest newfound newfoundland newline
newly newman newport news newsletter newsletters newsp newspaper newspapers newton newtonsoft next
nexus nginx ngon ngos nguyen niagara nicaragua nice nicely nicer nich niche nicholas nichols
nicholson nicht nichts nick nickel nickname nico nicol nicola nicolas nicole nicotine niece nied
nielsen niet nietzsche nieuwe nigel niger nigeria nigerian night nightclub nightlife nightly
nightmare nightmares nights nighttime nihil nije nike nikki nikol nikola nikon nilai nile nimbus
nina nine ninete nineteen nineteenth ninety ning ninguna ninja nintendo ninth nipple nipples nisi
nissan nitrogen nive niveau nivel nixon nltk noaa noah nobel noble nobody noch noche noct nodded
node nodes nodo noel noen noexcept noir noise noises noisy nokia nolan nombre nombres nombreux nome
nomin nominal nominate nominated nomination nominations nominee nominees nonatomic nonce nond none
nonetheless nonexistent noninfringement nonlinear nonprofit nonprofits nons nonsense nood noodles
noon noop nope noqa nora nord nordic noreferrer norfolk norge norm normal normalization normalize
normalized normally normals norman norms norris nors norsk norske norte north northeast northeastern
northern northwest northwestern norton norway norwegian norwich nose noses nosotros noss nossa nosso
nost nostalg nostalgia nostalgic nostra nostro nota notable notably notamment notas notation notch
note notebook notebooks noted notes noteworthy nothing notice noticeable noticeably noticed notices
noticias noticing notification notifications notified notifier notify notifying noting notion
notions notorious notoriously notre nottingham notwithstanding noun nouns nour nous nouve nouveau
nouveaux nouvel nouvelle nouvelles nova novamente novel novelist noveller novels novelty november
novembre novice novo nowadays nowhere nowrap nozzle nsarray nscoder nsdata nsdate nsdictionary
nserror nsinteger nslog nsmutable nsnumber nsobject nsstring nsuinteger nsurl nuanced nuances nucle
nuclear nuclei nucleus nude nuest nuestra nuestras nuestro nuestros nueva nuevas nuevo nuevos
nuggets nuis nuisance nuit null nulla nullable nullptr numa numb number numbered numbering numbers
numer numeral numerator numeric numerical numero numeros numerous numpy nums nunca nunit nuova nuovo
nurse nursery nurses nursing nurt nurture nurturing nuru nutrient nutrients nutrit nutrition
nutritional nutritious nuts nutshell nutzen nutzung nvidia nylon oakland oaks oasis oath oats oauth
obama obamacare obed obedience obedient oben ober obese obesity obey objc object objection
objections objective objectively objectives objects objet objetivo objeto objetos objs oblig
obligated obligation obligations obligatory obliged obliv obra obras obrig obsc obscene obscure
observ observable observation observational observations observatory observe observed observer
observers observes observing obsess obsessed obsession obsessive obsolete obst obstacle obstacles
obstruct obstruction obtain obtained obtaining obtains obten obtener obvious obviously ocas occas
occasion occasional occasionally occasions occult occup occupancy occupants occupation occupational
occupations occupied occupies occupy occupying occur occured occurred occurrence occurrences
occurring occurs ocean oceans octave october oculus ocup ocur oddly odds oder odin odio odor
odpowied odyssey oecd ofere oferta offen offence offences offend offended offender offenders
offending offense offenses offensive offer offered offering offerings offers offic office officer
officers offices official officially officials offline offre offs offseason offset offsetof offsets
offshore offspring oficial ofrec ofrece often oggi ogni ogre ohio ohne oils oily okay okhttp
oklahoma oktober olan olarak older oldest olds oldu oled oleh olig olive oliveira oliver olivia
olivier olsen olson oltre olymp olympia olympic olympics olympus omaha oman omar omdat omega omin
omission omit omitted omni onboard once onchange onclick onde onder ones oneself ongoing onion
onions online only onset onsite ontario onto ontology ontvang ontvangst onward onwards onze opacity
opaque opcion opciones opcode open opened opener opening openings openly openness opens oper opera
operand operands operate operated operates operating operation operational operations operative
operator operators opin opinion opinions opioid oportun oppon opponent opponents opportun
opportunities opportunity oppos oppose opposed opposing opposite opposition oppressed oppression
oppressive oprah opted optic optical optics optim optimal optimism optimistic optimization optimize
optimized optimizer optimizing optimum opting option optional optionally options opts oracle oral
orally orang orange oranges oraz orbit orbital orch orchard orchestr orchestra ordained ordeal orden
order ordered ordering orderly orders ordin ordinal ordinance ordinarily ordinary oregon ores organ
organic organis organisation organisations organise organised organisers organising organism
organisms organiz organization organizational organizations organize organized organizer organizers
organizing organs orgas orgasm orient oriental orientation orientations oriented orig origen origin
original originally originals originate originated originates originating origins orioles orion
orlando orleans ornament ornaments orphan orth orthodox ortiz orwell osaka osborne oscar oscars
oscill oscillator oslo osob ostat oste ostr ostream other others otherwise otra otras otro otros
ottawa otto ottoman ought ounce ounces ours ourselves outage outbound outbreak outbreaks outcome
outcomes outdated outdoor outdoors outer outf outfile outfit outfits outgoing outing outings outlaw
outlet outlets outline outlined outlines outlining outlook outpatient output outputs outr outra
outrage outrageous outras outreach outright outro outros outs outset outside outsider outsiders
outskirts outsourcing outspoken outstanding outward outweigh oval ovar ovarian oven over overall
overarching overcome overcoming overcrow overd overdose overdue overflow overflowing overhaul overhe
overhead overl overlap overlapping overlaps overlay overlays overload overloaded overlook overlooked
overlooking overly overnight overpower overridden override overrides overriding overs overse
overseas oversee overseeing oversees overshadow oversight oversized overst overt overthrow overtime
overturn overturned overview overweight overwhel overwhelm overwhelmed overwhelming overwhelmingly
overwrite overwritten owed owen owens owes owing owned owner owners ownership owning owns oxford
oxid oxidation oxidative oxide oxygen ozone paar pablo pace paced paciente pacientes pacific pacing
pack package packaged packages packaging packed packers packet packets packing packs pact pada padd
padded padding paddle padr padre padres pads padx pady pagamento pagan pagar page pageable pager
pages pagina paginate pagination paginator paging pago paid paige pain painful painfully pains
painstaking paint painted painter painters painting paintings paints pair paired pairing pairs pais
pakistan pakistani palabra palabras palace palate palavra pale paleo palest palestine palestinian
palestinians palette palin palindrome pall pallet palm palmer palms palo palp pals pamela pamph
panama panasonic panc pancakes pancre pancreatic pand panda pandas pandemic pandora pane panel
panels pang panic panor panorama panoramic pans pant pantalla panther panthers panties pantry pants
paolo papa papel paper paperback papers paperwork papua para parach parad parade paradigm paradise
paradox paragraph paragraphs paralle parallel parallels paralysis param parameter parameters
parametro parametros paramount params paran paranoia paranoid paranormal paras parasite parasites
parc parce parcel parcelable parcels parch parchment pard pardon pare parece pared pareja parent
parental parentheses parenthood parenting parents parfait pari paris parish parity park parked
parker parking parkinson parks parkway parl parler parliament parliamentary parm parms parody parole
parr pars parse parsed parser parses parsing parsley parsons part partager parte parted parten
partes parti partial partially partic particip participant participants participate participated
participates participating participation particle particles particular particularly particulars
partida partido partie parties partir partisan partition partitions partly partner partnered
partnering partners partnership partnerships parts party pasa pasadena pasado pasar pascal paso pass
passage passages passe passed passenger passengers passer passes passing passion passionate
passionately passions passive passport passports passwd password passwords past pasta paste pastor
pastoral pastors pastry pasture patch patched patches patel patent patented patents paternal path
pathetic pathfinder pathlib pathname pathogens pathological pathology paths pathway pathways
patience patient patiently patients patio patreon patri patriarch patricia patrick patriot patriotic
patriots patrol patron patrons patt pattern patterns patterson patty paul paula paulo pause paused
pauses pave paved pavel pavement pavilion paving pawn payable paycheck payday payer paying payload
payment payments payne payoff payout payouts paypal payroll pays pdata peace peaceful peacefully
peach peak peaked peaks peanut peanuts pear pearl pearls pearson peas peculiar pedal pedals pedestal
pedestrian pedestrians pediatric pediatrics pedido pedig pedigree pedro peek peel peeled peer peers
peggy pela pell pellet pellets pelo pelos pelosi pelvic pemb pena penal penalties penalty penc pence
penchant pencil pencils pend pendant pending penetr penetrate penetrating penetration peng penguin
penguins peninsula penis penn penned pennsylvania penny pens pensar pense pension pensions pent
pentagon pentru peny people peoples pepper peppers pepsi peptide peptides pequ peque perc perce
perceive perceived percent percentage percentages percentile percept perception perceptions perch
percussion percy perd perder pere perennial perez perf perfect perfected perfection perfectly perfil
perfor perform performance performances performed performer performers performing performs perfume
perg perhaps peri peril perimeter period periodic periodically periodo periods peripheral
peripherals perish perk perkins perks perl perm permalink perman permanent permanently perme permet
permissible permission permissions permit permite permits permitted permitting perms permutation
permutations pero perpendicular perpet perpetr perpetrators perpetual perplex perr perror perry pers
perse persec persecution persever perseverance persian persist persisted persistence persistent
persists perso person persona personal personalised personalities personality personalize
personalized personally personals personas persone personen personn personne personnel personnes
persons perspective perspectives persu persuade persuaded persuasion persuasive pert pertaining
perth pertinent peru pervasive peso pesos pesquisa pessim pesso pessoa pessoas pest pestic pesticide
pesticides pests petals pete peter peters petersburg peterson petit petite petites petition
petitioner petitions petits petr petra petro petrol petroleum pets petsc pett petty peut peuvent
peux peyton pfizer phantom phar pharm pharma pharmac pharmaceutical pharmaceuticals pharmacies
pharmacist pharmacy phase phased phaser phases phen phenomen phenomena phenomenal phenomenon
phenotype phil philadelphia philanth philip philipp philippe philippine philippines philips phill
phillies phillip phillips philly philosoph philosopher philosophers philosophical philosophy
phishing phoenix phon phone phones phosph phosphate phosphory phot photo photoc photograph
photographed photographer photographers photographic photographs photography photon photons photos
photoshop phpunit phrase phrases phys physic physical physically physician physicians physics
physiological physiology physique pian piano picasso pick picked picker picking pickle picks pickup
pickups picnic pics pict picture pictured pictures picturesque piece pieces pied piel pien pier
pierce pierced piercing pierre pierws pies piet pige pigeon piger pigment pigs pike pile piled piles
pilgr pilgrimage pill pillar pillars pillow pillows pills pilot pilots pimp pinch pine pineapple
ping pink pinnacle pinned pinpoint pins pint pinterest pione pioneer pioneered pioneering pioneers
pipe pipeline pipelines piper pipes piping piracy pirate pirates pisc piss pissed pist pistol piston
pitch pitched pitcher pitchers pitches pitching pitfalls pits pitt pittsburgh pity pivot pivotal
pixar pixel pixels pizza pizzas plaats plac place placebo placed placeholder placeholders placement
placements placer places placing plag plage plagiarism plague plagued plain plainly plains plaint
plaintext plaintiff plaintiffs plais plaisir plan plane planes planet planetary planets plank
planned planner planners planning plano plans plant planta plantation planted planting plants plaque
plasma plast plaster plastic plastics plat plata plataforma plate plateau plated plates platform
platforms platinum plato platz plausible play playa playable playback playboy played player players
playful playground playing playlist playlists playoff playoffs plays playstation playwright plaza
plea plead pleaded pleading pleas pleasant pleasantly please pleased pleasing pleasure pleasures
pled pledge pledged plein plentiful plenty plethora plex plight plist plot plots plotted plotting
plug plugged plugin plugins plugs plum plumber plumbing plung plunge plunged plur plural plurality
plus plush plusieurs plut pluto plymouth plywood pmid pname pneum pneumonia poate pobj pobl pocket
pockets poco podcast podcasts pode podem podemos poder podium podr pods poem poems poet poetic
poetry poets poids poignant point pointed pointer pointers pointing pointless points pois poised
poison poisoned poisoning poisonous poke pokemon poker poland polar polarity polarization pole poles
polic police policeman policies policing policy policym policymakers polish polished polishing polit
polite politely politic political politically politician politicians politico politics politique
poll pollen polling polls pollut pollutants polluted pollution polly polo poly polyester polygon
polygons polym polymer polynomial polys pomoc pomp pompe pond ponder ponds poner pong pont ponto
pontos pony pool pooled pooling pools poop poor poorer poorest poorly popcorn pope popped popping
pops popul populace popular popularity populate populated population populations populous popup
porcelain porch pore pores pork porn porno pornofil pornofilm pornografia pornography pornos
pornstar porous porque porr porsche port porta portable portal portals porte porter portfolio
portfolios portion portions portland porto portrait portraits portray portrayal portrayed portraying
portrays ports portsmouth portug portugal portuguese pose posed poses posible posicion posing posit
position positional positioned positioning positions positive positively positives positivity poss
possess possessed possesses possessing possession possessions possibile possibilities possibility
possible possibly possono possui post postage postal postcode poste posted poster posterior posters
postfix postgres posting postings posto postpon postpone postponed posts postseason posture
potassium potato potatoes potency potent potential potentially potentials potion pots potter pottery
pouch pouco poultry pound pounding pounds pour poured pouring pourquoi pourrait pours pouvez pouvoir
poverty powder powdered powell power powered powerful powerhouse powering powerless powerpoint
powers pprint prac pract practical practically practice practiced practices practicing practise
practition practitioner practitioners pracy pradesh prag pragma pragmatic prague prairie praise
praised praises praising prakt prank prat pratic pratique pratt praw pray prayed prayer prayers
praying preach preached preacher preaching prec precaution precautions preced preceded precedence
precedent preceding precinct precio precios precious precip precipitation precis precisa precise
precisely precision preco preconditions precursor pred predator predators predecess predecessor
predecessors predefined predetermined predicate predicates predict predictable predicted predicting
prediction predictions predictive predictor predictors predicts predis predomin predominant
predominantly preds pref prefab prefect prefer preferable preferably preference preferences
preferred prefers prefix prefixes prefs preg pregn pregnancies pregnancy pregnant pregunta preis
prejud prejudice prel prelim preliminary preload prelude prem premature prematurely premier premiere
premiered premise premises premium premiums prenatal prend prendre preocup preorder prep prepaid
prepar preparation preparations prepare prepared prepares preparing prepend preprocess preprocessing
prer prere prerequisite prerequisites pres presbyterian preschool prescott prescribe prescribed
prescribing prescription prescriptions preseason presence present presenta presentation
presentations presente presented presenter presenting presently presents preservation preserve
preserved preserves preserving preset presets presidency president presidente presidential
presidents press pressed presses pressing pressure pressured pressures prest prestige prestigious
preston presum presumably presume presumed presup pret pretend pretending pretrained pretty prev
prevail prevailed prevailing preval prevalence prevalent prevent preventative prevented preventing
prevention preventive prevents preview previews previous previously prey prez price priced priceless
prices pricey pricing prick pride priest priests prim prima primal primarily primary prime primeira
primeiro primer primera primero primes primitive primitives primo prin princ prince princes princess
princeton princip principal principales principally principalmente principals principio principle
principles print printable printed printer printers printf printing printk println prints prior
priorit priorities prioritize priority pris prise prism prison prisoner prisoners prisons pristine
priv privacy privat private privately prive privile privilege privileged privileges prix prize
prized prizes proactive prob probabil probabilities probability probable probably probation probe
probes probing probl proble problem problema problemas problematic problems probs proc proced
procedural procedure procedures proceed proceeded proceeding proceedings proceeds proces proceso
process processed processes processing procession processo processor processors proclaim proclaimed
proclamation procrast procur procure procurement prod produ produce produced producer producers
produces producing product production productions productive productivity producto productos
products produit produits produk produkt produkte produto produtos prof profes profesional profess
profession professional professionalism professionally professionals professionnel professions
professor professors proficiency proficient profil profile profiler profiles profiling profit
profitability profitable profits profound profoundly profund prog progen progn prognosis program
programa programas programm programma programme programmed programmer programmers programmes
programming programs progress progressed progresses progressing progression progressive
progressively prohib prohibit prohibited prohibition prohibits proj project projected projectile
projecting projection projections projector projects projekt projet projeto prol prolet prolifer
proliferation prolific prolong prolonged prom promin prominence prominent prominently promise
promised promises promising promo promot promote promoted promoter promoters promotes promoting
promotion promotional promotions prompt prompted prompting promptly prompts pron prone pronounce
pronounced pronto pronunciation proof proofs prop propag propaganda propagate propagated propagation
propane propel propelled propensity proper properly properties property proph prophecy prophet
prophets propia propiedad propio proponents propor proporcion proport proportion proportional
proportions propos proposal proposals propose proposed proposes proposing proposition propositions
propre propri propriet proprietary proprietor proprio props propulsion pros prose prosec prosecute
prosecuted prosecution prosecutor prosecutors prospect prospective prospects prosper prosperity
prosperous prost prostate prostit prostituerte prostitutas prostitute prostitutes prostitution prot
protagon protagonist protagonists prote protect protected protecting protection protections
protective protector protects protein proteins protest protestant protested protesters protesting
protests proto protobuf protocol protocols proton prototype prototypes protr proud proudly prov
prova prove proved proven proverb proves provid provide provided providence provider providers
provides providing provinc province provinces provincia provincial proving provision provisional
provisioning provisions provoc provocative provoke prow prowess prox proxies proximity proxy
proyecto proyectos prozent prudent prueba prune pruning prze przed przez przy przypad psalm pseud
pseudo pstmt psych psyche psyched psychedelic psychiat psychiatric psychiatrist psychiatry psychic
psycho psychological psychologically psychologist psychologists psychology pthread ptsd puberty
publi public publication publications publicity publicly publish published publisher publishers
publishes publishing pubs puck pudd pudding pudo pueblo pued pueda puede pueden puedes puedo puerto
pues puesto puff puis pulitzer pull pulled pulling pulls pulmonary pulp puls pulse pulses pulver
pump pumped pumping pumpkin pumps punch punched punches punching punct punctuation pund pune punish
punished punishment punitive punjab punk punt punto puntos pupil pupils pupper puppet puppies puppy
pups purch purchase purchased purchaser purchasers purchases purchasing purdue pure purely purge
purification purified purity purple purported purpos purpose purposely purposes purs purse pursuant
pursue pursued pursuing pursuit pursuits push pushed pushes pushing puss pussy puta putas pute putin
puts putting puzz puzzle puzzled puzzles pygame pylint pyplot pyramid pytest python qaction qaeda
qapplication qatar qcolor qcompare qfile qing qlabel qlist qname qobject qpoint qrect qsize qstring
qtext quad quadr quadrant quadratic quaint quake qual qualche qualcomm quale quali qualidade
qualification qualifications qualified qualifier qualifiers qualifies qualify qualifying qualitative
qualities quality qualquer quam quand quando quant quantidade quantify quantitative quantities
quantity quanto quantum quar quarantine quarry quart quarter quarterback quarterbacks quarterly
quarters quartz quasi quat quaternion quatre quebec qued queda queen queens queensland queer quel
quella quelle quello quelque quelques quem quentin quer queried queries query querying queryset ques
quest questa questi question questionable questioned questioning questionnaire questions questo
quests queue queued queues quick quicker quickest quickly quien quienes quiere quieres quiero quiet
quieter quietly quil quilt quincy quindi quinn quint quir quirky quis quit quite quits quitting quiz
quizzes quoi quot quota quotas quotation quotations quote quoted quotes quotid quotient quoting
quran qvariant qvector qverify qwidget rabbi rabbit rabbits race raced racer races rach rachel
racial racing racism racist rack racket racks radar radeon radi radial radians radiant radiation
radiator radical radically radicals radio radioactive radios radius radix rafael raft ragaz ragazzi
rage raging ragnar rahmen rahul raid raider raiders raids rail railing railroad rails railway rain
rainbow rainfall raining rains rainy rais raise raised raises raising raison rajasthan rake raleigh
rall rallied rallies rally ralph ramadan ramifications ramirez ramos ramp rampant ramps rams ramsey
ranch rand randall randint randolph random randomized randomly randomness randy rang range ranged
ranger rangers ranges ranging rank ranked ranking rankings ranks ransom rant rape raped raphael
rapid rapide rapidement rapidly rapids rapp rapper rapport raptors rare rarely rarity rash rasp
raspberry raster rate rated rates rath rather rating ratings ratio ration rational rationale ratios
rats ratt raum rave raven ravens raymond rays razor reach reachable reached reaches reaching react
reacted reacting reaction reactions reactive reactor reactors reacts read readability readable
reader readers readily readiness reading readings readline readme readonly reads ready reagan real
realidad realise realised realism realistic realistically realities reality realiz realiza realizado
realizar realization realize realized realizes realizing realloc really realm realmente realms realt
realtime realty reap rear rearr reason reasonable reasonably reasoning reasons reass reassure
reassuring rebate rebecca rebel rebell rebellion rebels reboot rebound rebounds rebuild rebuilding
rebuilt rebut recal recall recalled recalling recalls recap rece recebe receber receipt receipts
receive received receiver receivers receives receiving recent recently recept reception receptions
receptive receptor receptors recess recession recharge recher recherche recht recib recibir recieved
recip recipe recipes recipient recipients recipro reciprocal reck reckless reckon recl reclaim
reclaimed reco recogn recognise recognised recognition recognizable recognize recognized recognizes
recognizing recoil recom recomend recomm recommand recommend recommendation recommendations
recommended recommending recommends recon reconc reconcile reconciliation reconnaissance reconnect
reconoc reconsider reconstruct reconstructed reconstruction record recorded recorder recording
recordings records recount recover recovered recovering recovery recre recreate recreated recreation
recreational recruit recruited recruiter recruiters recruiting recruitment recruits rect rectangle
rectangles rectangular recuper recur recurrence recurrent recurring recurse recursion recursive
recursively recursos recv recycl recycle recycled recycling redd reddit rede redeem redeemed
redefine redemption redes redesign redesigned redevelopment redirect redirected redirects redis
redistribute redistributed redistribution redistributions redo redraw reds redskins redu reduce
reduced reducer reducers reduces reducing reduction reductions redund redundancy redundant redux
reed reef reefs reel reels reese reeves refer refere referee reference referenced references
referencia referencing referendum referral referrals referred referring refers refill refin refine
refined refinement refinery refining refl reflect reflected reflecting reflection reflections
reflective reflects reflex reflux reform reforms refr refrain refresh refreshed refreshing refriger
refrigerator refs refuge refugee refugees refund refunded refunds refurb refurbished refusal refuse
refused refuses refusing regain regained regard regarded regarding regardless regards regel
regenerate regenerated regeneration regents regex regexp regime regimen regiment regimes regina
region regional regions regist register registered registering registers registr registrado
registrar registration registrations registro registros registry regress regression regret regrets
regs regul regular regularly regulate regulated regulates regulating regulation regulations
regulator regulators regulatory rehab rehabilitation rehe rehears rehearsal reich reid reign
reigning reimb reimburse reimbursement rein reinc reinforce reinforced reinforcement reinforces
reinforcing reins reinst reinstall reinterpret reiterated reject rejected rejecting rejection
rejects rejo rejoice rejuven rekl relacion relaciones relat relate related relates relating relation
relational relations relationship relationships relativ relative relatively relatives relax
relaxation relaxed relaxing relay rele release released releases releasing releg relent relentless
relentlessly relev relevance relevant reli reliability reliable reliably reliance reliant relic
relied relief relies relieve relieved relig religion religions religious relinqu reload reloc
relocate relocated relocation reluct reluctant reluctantly rely relying remain remainder remained
remaining remains remake remar remark remarkable remarkably remarked remarks remed remedies remedy
remember remembered remembering remembers remin remind reminded reminder reminders reminding reminds
reminis reminiscent remix remnants remodel remodeling remorse remot remote remotely removable
removal remove removed remover removes removing rempl rena renaissance renal rename renamed renault
rencontr rencontre rencontrer rencontres rend render rendered renderer rendering renders rendez
rendition rendre rene renew renewable renewal renewed reno renov renovated renovation renovations
renowned rent rental rentals rented renters renting rents reopen reopened reopening reorder
reordered repaint repair repaired repairing repairs repar repay repayment repe repeal repeat
repeated repeatedly repeating repeats repell repent repercussions repertoire repet repetition
repetitions repetitive repl replace replaced replacement replacements replaces replacing replay
replen replic replica replicas replicate replicated replication replied replies reply repo report
reported reportedly reporter reporters reporting reports repos repositories repository repost repr
repreh represent representa representation representations representative representatives
represented representing represents repression repro reprodu reproduce reproduced reproduction
reproductive reps rept republic republican republicans reput reputable reputation reputed requ
requer request requested requester requesting requests require required requirement requirements
requires requiring requis requisite resale resc rescue rescued research researched researcher
researchers researching resemblance resemble resembles resembling resend resent resentment reserv
reserva reservation reservations reserve reserved reserves reservoir reset resets resetting resh
reshape resid reside residence residences residency resident residential residents resides residing
residual residue residues resign resignation resigned resil resilience resilient resin resist
resistance resistant resisted resisting resistor resize resized resizing resolution resolutions
resolve resolved resolver resolves resolving reson resonance resonate resort resorts resource
resources resp respect respectable respected respectful respectfully respecting respective
respectively respecto respects respir respiratory respond responded respondent respondents responder
responders responding responds respons responsable response responses responsibilities
responsibility responsible responsibly responsive responsiveness resposta respuesta rest resta
restart restarted restarting restaur restaurant restaurants reste rested resting restitution
restless resto restoration restore restored restores restoring restr restrained restraint restrict
restricted restricting restriction restrictions restrictive restroom restructuring rests result
resultado resultados resultant resultat resulted resulting results resume resumed resumes resurgence
resurrect resurrection retail retailer retailers retain retained retaining retains retali
retaliation retard retention rethink retina retir retire retired retirees retirement retiring retorn
retorna retorno retour retr retract retreat retries retrieval retrieve retrieved retrieves
retrieving retro retrofit retros retrospect retrospective retry return returned returning returns
retval reun reunion reunited reusable reuse reused reuters revamped reve reveal revealed revealing
reveals revel revelation revelations reven revenge revenue revenues rever revered revers reversal
reverse reversed reversible reversing revert reverted review reviewed reviewer reviewers reviewing
reviews revis revise revised revision revisions revisit revital revival revive revived revoke
revoked revolt revolution revolutionary revolves revolving reward rewarded rewarding rewards rewind
rewrite rewriting rewritten reyes reyn reynolds rfid rgba rhet rhetoric rhetorical rhino rhode
rhodes rhyme rhyth rhythm rhythms ribbon ribs rica rican ricardo rice ricerca rich richard richards
richardson richer riches richest richie richmond richness richt richtig rick ricky rico ridden ride
rider riders rides ridge ridicule ridiculous ridiculously riding rien ries riff rifle rifles rift
right righteous righteousness rightful rightly rights rigid rigidbody rigor rigorous rigs rihanna
riley rims ring ringing rings rins rinse riot riots ripe ripped ripping ripple rise risen rises
rising risk risking risks risky risult rita rites ritual rituals rival rivalry rivals river rivera
rivers riverside road roadmap roads roadside roadway roam roaming roar roaring roast roasted robbed
robber robbery robbie robbins robe robert roberto roberts robertson robes robin robinson robot
robotic robotics robots robust roch rochester rock rocked rockefeller rocker rocket rockets rockies
rocking rocks rocky rode rodents rodgers rodney rodr rodrig rodrigo rodriguez rods rodz roger rogers
rogue roku roland role roles rolex roll rollback rolled roller rollers rolling rollout rolls roma
roman romance romania romanian romans romant romantic rome romeo romero romney ronald ronaldo rond
ronnie roof roofing roofs rooft rooftop rookie room roommate rooms rooney roosevelt root rooted
rooting roots rope ropes rory rosa rose rosen roses rosie rospy ross rossi roster rotary rotate
rotated rotates rotating rotation rotational rotations roth rotor rotten rotterdam rouge rough
roughly roulette round rounded rounding rounds roundup rousse rout route routed router routers
routes routine routinely routines routing rover rowling rows rowspan royal royale royals royalties
royalty rsvp rtwf rubbed rubber rubbing rubbish rubble rubin rubio ruby rude rudy rugby rugged rugs
ruin ruined ruining ruins ruiz rule ruled ruler rulers rules ruling rumor rumored rumors rumours
rumpe runaway rund rundown rune runnable runner runners running runoff runs runtime runway rupert
rupt rupture rural rush rushed rushing russ russe russell russia russian russians russo rust rustic
rusty ruta rutgers ruth ruthless rval rwanda ryan ryder ryzen saat sabb sabbath sabe saber sabha
sabot sabotage sach sachs sack sacks sacr sacramento sacred sacrific sacrifice sacrificed sacrifices
sacrificing sadd saddam saddened saddle sadly sadness safari safe safeguard safeguards safely safer
safest safety saga sage sagen sagt sagte sahara said sail sailed sailing sailor sailors sails saint
saints sais saison saja sake sakura sala salad salads salah salaries salario salary saldo sale salem
sales salesforce salesman salida saline salir salisbury saliva salle sally salman salmon salon salsa
salt salts salty salud salute salv salvador salvage salvar salvation sama samantha samar same samen
sammen sammy samo samoa samp sample sampled sampler samples sampling samsung samt samuel samurai
sanchez sanct sanction sanctioned sanctions sanctuary sand sandals sandbox sanders sandra sands
sandwich sandwiches sandy sane sanford sang sangat sanit sanitary sanitation sanitize sanitized
sanitizer sanity sank sans sant santa santana santiago santo santos sapi sapphire sara sarah saras
sarcast sare sark sasha sask saskatchewan sass sata satan satellite satellites satin satire satisf
satisfaction satisfactory satisfied satisfies satisfy satisfying satu satur saturated saturation
saturday saturdays saturn sauce sauces saud saudi saul sauna saunders sausage savage savannah save
saved saver saves saving savings savior savoir savory savvy sawyer saya saying says scaff scaffold
scal scala scalability scalable scalar scalars scale scaled scaler scales scaling scalp scam scams
scan scand scandal scandals scandin scandinavian scanf scanned scanner scanners scanning scans scant
scar scarce scarcely scarcity scare scared scares scarf scarlet scarlett scars scary scatter
scattered scattering scav scen scenario scenarios scene scenery scenes scenic scent scept scha sche
sched schedule scheduled scheduler schedules scheduling schema schemas schematic scheme schemes
schiff schizophrenia schl schle schmidt schn schneider schnell scho scholar scholarly scholars
scholarship scholarships schon school schooling schools schro schul schultz schw schwar schwartz
schwarz schwe schwer science sciences scient scientific scientifically scientist scientists scip
scipy scissors sclerosis scoop scooter scop scope scoped scopes scor score scoreboard scored scorer
scores scoring scot scotch scotia scotland scots scott scottish scour scout scouting scouts scramble
scrambled scrambling scrap scrape scraped scraper scraping scraps scrapy scratch scratched scratches
scratching scre scream screamed screaming screams screen screened screening screenings screenplay
screens screenshot screenshots screw screwed screws script scripted scripting scripts scripture
scriptures scroll scrollbar scrolling scrub scrutin scrutiny sculpt sculpture sculptures sdlk seab
seafood seah seahawks seal sealed sealing seals seam seamless seamlessly seams sean search
searchable searched searches searching sears seas seaside season seasonal seasoned seasoning seasons
seat seated seating seats seattle seaw sebagai sebastian sebuah secara secluded second secondary
secondly secondo seconds secre secrecy secret secretary secretion secretly secrets secs sect section
sectional sections sector sectors secular secure secured securely securing securities security sedan
sede sediment seed seeded seeder seeds seedu seeing seek seeker seekers seeking seeks seem seemed
seeming seemingly seems seen sees sega segment segmentation segmented segments segreg segregation
segu segue seguir segunda segundo segundos seguridad seguro sehen sehr sein seine seinem seinen
seiner seins seis seismic seit seite seiten seiz seize seized seizure seizures seja seks seksi
selber selbst seldom sele seleccion selecion select selectable selected selecting selection
selections selective selectively selector selectors selects selenium self selfie selfies selfish
sell seller sellers selling sells selon selv selves semaine semana semanas semantic semantics
semaphore sembl semble semen semester semi semiconductor semif seminal seminar seminars semp sempre
semua senate senator senators send sender sending sendo sends senha senior seniors sens sensation
sensational sensations sense sensed senses sensible sensing sensit sensitive sensitivity sensor
sensors sensory sensual sent sentence sentenced sentences sentencing sentido sentiment sentimental
sentiments sentinel sentir senza seoul separ separat separate separated separately separates
separating separation separator separators seper seperate seperti sept september septembre sequ
sequel sequelize sequence sequences sequencing sequential sera serait serbia serbian serde serena
serene serg serge sergeant sergey sergio seri seria serial serializable serialization serialize
serialized serializer serializers serie series serif serious seriously seriousness sermon seront
serotonin serpent serr serta serum serv servant servants serve served server servers serves servi
servic service serviced services servicing servicio servicios servidor serving servings servlet
servo sesame sess session sessions sesso setattr setback setbacks seth sets sett setter setters
setting settings settle settled settlement settlements settlers settles settling setup setups
setuptools setw setzen seul seule seulement seus seven sevent seventeen seventh seventy sever
several severe severely severity sevilla sewage sewer sewing sexe sexes sexism sexist sexle sexo
sext sexual sexuales sexuality sexually sexy seymour seznam shack shade shaded shader shaders shades
shading shadow shadows shady shaft shah shak shake shaken shakes shakespeare shaking shaky shale
shall shallow shalt sham shame shampoo shan shane shanghai shannon shape shaped shapes shaping shar
shard shards share shared shareholder shareholders shares sharing shark sharks sharma sharon sharp
sharpen sharper sharply shattered shaun shave shaved shaving shaw shawn shay shea shear shed
shedding sheds sheep sheer sheet sheets sheffield sheikh sheila shel shelby sheldon shelf shell
shelley shells shelter shelters shelves shemale shen shepard shepherd sher sheridan sheriff sherlock
sherman shield shielding shields shift shifted shifting shifts shim shimmer shin shine shines
shining shiny ship shipment shipments shipped shipping ships shir shirley shirt shirts shit shitty
shiv shock shocked shocking shocks shoe shoes shook shoot shooter shooters shooting shootings shoots
shop shopify shopper shoppers shopping shops shore shoreline shores short shortage shortages
shortcode shortcomings shortcut shortcuts shorten shortened shorter shortest shorthand shortly
shorts shot shotgun shots should shoulder shoulders shouldn shout shouted shouting shove shoved
shovel show showc showcase showcased showcases showcasing showdown showed shower showers showing
shown showroom shows shred shredd shredded shri shrimp shrine shrink shrinking shrugged shuffle
shuffled shut shutdown shutil shuts shutter shutterstock shutting shuttle siber sibling siblings
sich sicher sick sickness sidd side sidebar sided sidel sidelines siden sider sides sidewalk
sidewalks sideways siding sidney sido siege sieht siemens siempre siendo sierra sieve sift sigh
sighed sight sightings sights sigma sigmoid sign signage signal signaling signalling signals
signature signatures signed signer signific significa significance significant significantly
signifies signify signin signing signs signup sigu sigue siguiente siguientes sikh sildenafil
silence silent silently silhouette silica silicon silicone silk silky sill silly silva silver simd
simil similar similarities similarity similarly simmer simmons simon simone simp simpl simple
simplement simpler simples simplest simplex simplicity simplified simplify simplistic simply simpson
simpsons sims simul simulate simulated simulation simulations simulator simult simultaneous
simultaneously sina sinai sinatra sinc since sincer sincere sincerely sincerity sinclair sind sine
sinful sing singapore singer singers singh singing single singled singles singleton singly sings
singular sinh sinister sink sinking sinks sinn sino sinon sins sint sinus sioux sire siri sirius
sist sistem sistema sistemas sister sisters sitcom site sites sith siti sitio sitios sito sits
sitting situ situated situation situations sixteen sixth sixty sizable size sized sizeof sizes
sizing skal skate skateboard skating skeletal skeleton skept skeptic skeptical skepticism sketch
sketches skew skies skiing skill skilled skillet skills skim skin skincare skinny skins skip skipped
skipping skips skirt skirts sklearn skull skulle skyl skyline skype skyrim slab slack slag slain
slam slammed slang slap slapped slash slate slated slaughter slave slavery slaves slayer sled slee
sleek sleep sleeper sleeping sleeps sleepy sleeve sleeves slender slept slew slic slice sliced
slices slicing slick slid slide slider sliders slides slideshow sliding slight slightest slightly
slik slim slime sling slip slipped slippery slipping slips slit sloan slog slogan slogans slope
slopes sloppy slot slots slovakia sloven slovenia slow slowdown slowed slower slowing slowly slows
slug sluggish slump slut sluts smack small smaller smallest smart smarter smartphone smartphones
smarty smash smashed smashing smear smell smelled smelling smells smile smiled smiles smiling smith
smithsonian smoke smoked smoker smokers smoking smooth smoother smoothing smoothly smtp snack
snackbar snacks snag snake snakes snap snapchat snapdragon snapped snapping snaps snapshot snapshots
sneak sneakers snel sniff sniper snippet snippets snork snow snowden snowy snprintf snug snyder soak
soaked soaking soap soar soared soaring sober sobie sobre soccer soci social sociale sociales
socialism socialist socially sociedad societal societies society socio socioeconomic sociology sock
sockaddr socket sockets socks soda sodium sofa sofas sofia sofort soft softball soften softened
softer softly software sogar soil soils soir soit sola solar sold solder soldier soldiers sole
solely solemn solic solicit solicitud solid solidarity solidity solids solitary solitude soll sollen
sollte sollten solo solomon soluble solution solutions solve solved solvent solver solves solving
soma somali somalia some somebody someday somehow someone somerset something sometime sometimes
somewhat somewhere sommer sommes sonata sond sondern song songs songwriter sonia sonic sono sonra
sons sonst sont sony soon sooner soothing soph sophia sophie sophisticated sophistication sophomore
sopr sore sorrow sorry sort sortable sorte sorted sorter sortie sorting sorts sost sotto sought
souha soul souls sound sounded sounding sounds soundtrack soup sour source sourced sources sourcing
sous sout south southampton southeast southeastern southern southwest southwestern souvenir souvent
sovere sovereign sovereignty soviet sowie spac space spacecraft spaced spacer spaces spaceship
spacing spacious spaghetti spain spam span spanish spanking spanning spans spar spare spared spark
sparked sparkle sparkling sparks sparse spart spartan spas spat spatial spawn spawned spawning spdx
speak speaker speakers speaking speaks spear spears spec special specialised specialist specialists
specialization specialize specialized specializes specializing specially specials specialties
specialty species specific specifically specification specifications specificity specifics specified
specifies specify specifying specimen specimens specs spect spectacle spectacular spectator
spectators spectra spectral spectrum speculate speculation speculative sped speech speeches speed
speeding speeds speedway speedy spel spell spelled spelling spells spencer spend spender spending
spends spent sper sperm sphere spheres spherical spice spices spicy spider spiders spiel spielberg
spiele spielen spieler spies spike spikes spill spilled spills spin spinach spinal spindle spine
spinner spinning spins spir spiral spirit spirited spirits spiritual spirituality spiritually spit
spite splash sple splendid splice spline split splits splitted splitter splitting spoil spoiled
spoiler spoilers spokane spoke spoken spokes spokesman spokesperson spokeswoman sponge spons sponsor
sponsored sponsoring sponsors sponsorship spont spontaneous spontaneously spoof spooky spoon spor
sport sporting sports spos spot spotify spotlight spots spotted spotting spouse spouses spraw
sprawling spray sprayed spraying spre spread spreading spreads spreadsheet spree spring springer
springfield springfox springs sprink sprinkle sprint sprintf sprite sprites sprung spun spur spurs
spying sqlalchemy sqlexception sqlite sqrt squad squadron squads square squared squares squash squat
sque squeez squeeze squeezed squeezing squid squir squirrel srand sscanf ssize staat stab stabbed
stabbing stabil stability stabilization stabilize stabilized stable stack stacked stacking stacks
stacy stad stadium stadt staff staffing stafford stag stage staged stages stagger staggering staging
stagn stagnant stain stained staining stainless stains stair staircase stairs stake stakeholders
stakes stal stale stalin stalk stalking stall stalled stalls stam stamford stamina stamp stamped
stamps stan stance stand standalone standard standardized standards standby standing standings
standout standpoint stands stanford stanley stanton stanza stap staple staples star starbucks starch
stard stare stared staring stark starr starred starring stars start started starter starters
starting startled startling starts startup startups starvation starving stash stat stata state
stated stateless statement statements staten states statewide stati static stating station
stationary stationed stations statist statistic statistical statistically statistics stato stats
statt statue statues stature status statuses statute statutes statutory stav stay stayed staying
stays stdcall stderr stdin stdmethod stdmethodcalltype stdout stead steadfast steadily steady steak
steal stealing steals stealth steam steel steele steelers steep steer steering stef stefan stehen
steht stein stella stellar stellen stellt stem stemming stems stencil step steph stephan stephanie
stephen stephens stepped stepping steps ster stere stereo stereotype stereotypes steril sterile
sterling stern steroid steroids stesso steve steven stevens stevenson stew steward stewart stick
sticker stickers sticking sticks sticky stiff stiffness stigma stil still stim stimulate stimulated
stimulates stimulating stimulation stimuli stimulus sting stint stip stir stirred stirring stitch
stitched stitches stitching stmt stochastic stock stocked stockholm stocking stockings stocks stoi
stoke stole stolen stom stomach stone stones stood stool stools stop stopped stopping stops
stopwatch stor storage store stored storefront stores storia stories storing storm storms story
storyboard storyline storyt storytelling stos stout stove stra straight straightforward strain
strained strains strait strand stranded strands strang strange strangely stranger strangers strap
strapped straps strat strateg strategic strategically strategies strategist strategy strauss straw
strawberries strawberry stray strcat strchr strcmp strconv strcpy strdup stre streak stream streamed
streaming streamline streamlined streams street streets strength strengthen strengthened
strengthening strengthens strengths strerror stress stressed stresses stressful stressing stret
stretch stretched stretches stretching strict strictly stride strides strike striker strikes
striking string stringent stringify strings strip stripe striped stripes stripped stripper stripping
strips stripslashes strive strives striving strlen strncpy stro stroke strokes stroll strom stron
strong stronger strongest strongly strpos strs strstr strtok strtolower strtotime strtoupper struck
struct structs structural structure structured structures strugg struggle struggled struggles
struggling stuart stub stubborn stuck stud student students studied studies studio studios studs
study studying stuff stuffed stuffing stumble stumbled stumbling stump stun stunden stunned stunning
stunt stup stupid stupidity sturdy stuttgart styl style styled styles stylesheet styling stylish
stylist suarez suas subaru subclass subclasses subconscious subcontract subdiv subdivision
subdivisions subdued subgroup subj subject subjected subjective subjects sublic sublicense sublime
submar submarine submenu submerged submission submissions submit submits submitted submitting subnet
subordinate subplot subpo subpoena subprocess subreddit subs subscribe subscribed subscriber
subscribers subscribing subscription subscriptions subsection subsequent subsequently subset subsets
subsid subsidi subsidiaries subsidiary subsidies subsidy subst substance substances substant
substantial substantially substantive substit substitute substituted substitutes substitution
substitutions substr substrate substring subsystem subt subtitle subtitles subtle subtly subtotal
subtract subtraction subtree subtype suburb suburban suburbs subway succ succeed succeeded
succeeding succeeds succes success successes successful successfully succession successive successor
successors succinct sucess sucesso such suche suchen sucht suck sucked sucker sucking sucks suction
sudah sudan sudden suddenly sudo sudoku sued suede suff suffer suffered sufferers suffering suffers
suffice sufficient sufficiently suffix suffolk sugar sugars suger suggest suggested suggesting
suggestion suggestions suggests suic suicidal suicide suing suis suit suitability suitable suitcase
suite suited suites suits suiv sujet sulf sulfate sulfur sulla sullivan sulph sultan suma summ
summar summaries summarize summarized summarizes summary summed summer summers summit summon
summoned summons sums sund sunday sundays sunderland sung sunglasses sunk sunlight sunni sunny
sunrise suns sunscreen sunset sunshine sunt suoi super superb superclass superf superficial
superhero superheroes superintendent superior superiority superman supermarket supermarkets
supernatural supers superst superstar supervise supervised supervision supervisor supervisors supp
supper suppl supplement supplemental supplementary supplementation supplemented supplements supplied
supplier suppliers supplies supply supplying support supported supporter supporters supporting
supportive supports suppose supposed supposedly suppress suppressed suppression supra suprem
supremacy supreme sure surely surf surface surfaced surfaces surfing surg surge surged surgeon
surgeons surgeries surgery surgical surname surpass surpassed surplus surpr surprise surprised
surprises surprising surprisingly surreal surrender surrendered surrey surrogate surround surrounded
surrounding surroundings surrounds surtout surv surve surveillance survey surveyed surveys surviv
survival survive survived survives surviving survivor survivors susan suscept susceptibility
susceptible sushi susp suspect suspected suspects suspend suspended suspense suspension suspicion
suspicious sussex sust sustain sustainability sustainable sustained sustaining sutton suzanne suzuki
svens svensk svenska swagger swal swallow swallowed swallowing swamp swan swansea swap swapped
swapping swaps swarm sway swear sweat sweater sweating sweaty sweden swedish sweep sweeping sweet
sweetheart sweetness sweets swell swelling swept swift swiftly swim swimming swims swing swinger
swingers swinging swings swipe swiper swirl swirling swiss switch switched switches switching
switzerland swollen sword swords sworn swung sydney syll sylvia symbol symbolic symbolism symbols
symfony symmetric symmetry sympath sympathetic sympathy symphony symposium sympt symptom symptoms
synagogue sync synced synchron synchronization synchronize synchronized synchronous syncing synd
syndrome synerg synergy synonym synonymous synonyms synopsis synt syntax synth synthes synthesis
synthesized synthetic syracuse syria syrian syrup syscall syst system systematic systematically
systemic systems szcz szer tabel tabela tabindex tabla table tableau tables tablespoon tablespoons
tablet tabletop tablets taboo tabs tack tackle tackled tackles tackling taco tacoma tacos tact
tactic tactical tactics tactile tage tagged tagging tags tahoe tahun tail taille tailor tailored
tails taipei taiwan taiwanese take takeaway taken takeover takes taking tako tale talent talented
talents tales taliban talk talked talking talks tall taller tallest tally tamanho tamb tame tamil
tamp tampa tand tandem tang tangent tanggal tangible tangled tango tank tanker tanks tanner tant
tantal tanto tantr tantra tanz tanzania tape taped taper tapered tapes tapi tapped tapping taps tara
taraf tard tarde tarea targ target targeted targeting targets tariff tariffs tarn tart task tasked
tasks tasmania tast taste tasted tastes tasting tasty tata tate tattoo tattoos taught tavern taxa
taxable taxation taxed taxes taxi taxing taxis taxonomy taxp taxpayer taxpayers taylor tbody tbsp
tchar teach teacher teachers teaches teaching teachings teal team teamed teammate teammates teams
teamwork tear teardown tearing tears teas tease teased teaser teasing teaspoon teaspoons tech techn
technical technically technician technicians technique techniques techno technological technologies
technology tecn teddy tedious teen teenage teenager teenagers teens teeth tegen tego tehran teil
tekn tekst tela telah tele telecom telecommunications telefon telefone telefono telegram telegraph
telemetry telephone teleport telerik telesc telescope televis televised television tell telling
tells tema temas temp temper temperament temperatura temperature temperatures tempered tempfile
templ template templates temple temples tempo tempor temporada temporal temporarily temporary temps
tempt temptation tempted tempting tenant tenants tencent tend tended tendencies tendency tender
tendon tends tenemos tener teng tenga tengo tenn tennessee tennis tens tense tension tensions tensor
tensorflow tensors tent tentang tentative tenth tents tenure tercer teresa term terme termed termin
terminal terminals terminate terminated terminating termination terminology terms tern terr terra
terrace terrain terraria terre terrestrial terrible terribly terrific terrified terrifying territor
territorial territories territory terror terrorism terrorist terrorists terry ters terse tersebut
tert tertiary terug tesla tess test testament testcase teste tested tester testers testified testify
testimon testimonials testimony testing testosterone tests tetas tether texans texas text textarea
textbook textbooks textbox texte textile textiles texting texto texts textual texture textured
textures thai thailand thames than thank thanked thankful thankfully thanking thanks thanksgiving
that thatcher thats thaw theater theaters theatre theatrical thee theft their theirs them thema
thematic theme themed themes themselves then theo theodore theolog theological theology theor
theorem theoret theoretical theoretically theories theory ther therap therapeutic therapies
therapist therapists therapy there thereafter thereby therefore therein thereof theres theresa therm
thermal thermo thermometer thermostat these thesis theta they thick thicker thickness thief thieves
thigh thighs thin thing things think thinker thinkers thinking thinks thinner third thirds thirst
thirsty thirteen thirty this thom thomas thompson thomson thor thorn thornton thorough thoroughly
those thou though thought thoughtful thoughts thous thousand thousands thread threaded threading
threads threat threaten threatened threatening threatens threats three thresh threshold thresholds
threw thrift thrill thrilled thriller thrilling thrive thriving thro throat throm throne thrones
thrott throttle through throughout throughput throw throwable throwing thrown throws thru thrust
thuis thumb thumbnail thumbnails thumbs thunder thunk thur thurs thursday thus thwart thyroid tian
tibet tibetan tick ticker ticket tickets ticking ticks tidak tidal tide tidy tied tiempo tiene
tienen tienes tier tiers ties tieten tiff tiffany tiger tigers tight tighten tightened tightening
tighter tightly tijd tile tiled tiles till tilt tilted timber time timed timedelta timeframe
timeless timeline timelines timely timeout timer timers times timestamp timestamps timestep
timetable timeval timezone timid timing timings timothy timp tina tinder ting tinha tink tint tiny
tion tipo tipos tipped tipping tips tire tired tirelessly tires tissue tissues titan titanic
titanium titans title titled titles titre tits titular titulo tjejer tkinter tmax tmin tmpl tmpro
toast toasted toaster toastr tobacco tobias tobject toby toch toda todas today todd toddler toddlers
todo todos toen toes tofu together togg toggle toile toilet toilets token tokenize tokenizer tokens
tokyo told toledo toler tolerance tolerant tolerate tolerated tolkien toll tolua tomar tomas tomato
tomatoes tomb tome tommy tomorrow tone toned tones tong tongue tongues toni tonic tonight tonnes
tons tonumber tony took tool toolbar toolbox toolkit tools tooltip tooth topic topical topics topo
topology topp topped topping toppings tops torah torch torchvision tore torino torment torn tornado
toro toronto torque torrent torrents torres tors torso tort torture tortured tory toshiba toss
tossed tossing tostring total totaled totalement totaling totally totalmente totals tote tottenham
touch touchdown touchdowns touched touches touching touchscreen tough tougher toughest toughness
toujours tour toured touring tourism tourist tourists tournament tournaments tours tous tout toute
touted toutes toward towards towel towels tower towering towers towing town towns townsend township
toxic toxicity toxin toxins toyota toys tqdm trab trabaj trabajar trabajo trabal trabalho trace
traceback traced tracer traces tracing track tracked tracker trackers tracking tracks tract traction
tractor tracy trad trade traded trademark trademarks trader traders trades trading tradition
traditional traditionally traditions traf traff traffic trafficking trafford trag traged tragedies
tragedy tragic trail trailer trailers trailing trails train trained trainer trainers training trains
trait traitement traits traj trajectories trajectory tram tran trance tranny tranqu tranquil trans
transaction transactions transc transcend transcript transcription transcripts transf transfer
transferred transferring transfers transform transformation transformations transformative
transformed transformer transformers transforming transforms transgender transient transistor
transit transition transitional transitioning transitions transl translate translated translates
translating translation translations translator translators translucent transmission transmissions
transmit transmitted transmitter transmitting transparency transparent transplant transplantation
transport transportation transporte transported transporter transporting transports transpose trap
trapped trapping traps tras trash trat trata tratamiento tratt trauma traumat traumatic trav trava
travail travel traveled traveler travelers traveling travelled traveller travellers travelling
travels travers traversal traverse travis tray trays tread treadmill treasure treasurer treasures
treasury treat treated treaties treating treatment treatments treats treaty trebuie tree trees treff
treffen trek trem trembling tremend tremendous tremendously tren trench trenches trend trending
trends trendy trent tres tresult trevor trey trial trials triang triangle triangles triangular trib
tribal tribe tribes tribunal tribune tribute trick tricks tricky trie tried tries trif trig trigger
triggered triggering triggers trillion trilogy trim trimmed trimming trinidad trinity trio trip
tripadvisor triple triples tripod trips tristan trit tritur trium triumph trivia trivial trois
trojan troll trolling trolls trom trong troop troops trop trope trophies trophy tropical trot trotz
trou troub trouble troubled troubles troubleshooting troublesome troubling trough trous trousers
trout trouve trouver trov trovare troy truck trucks trudeau true truly truman trump trumpet trunc
truncate truncated trunk trust trusted trustee trustees trusting trusts trustworthy truth truthful
truths trying tslib tslint tstring tsunami tube tuberculosis tubes tubing tucked tucker tucson tudo
tues tuesday tuition tulsa tumble tumblr tumor tumors tumult tuna tune tuned tuner tunes tung tuning
tunis tunisia tunnel tunnels tuple tuples turb turbine turbines turbo turbulence turbulent turf turk
turkey turkish turks turmoil turn turnaround turned turner turning turno turnout turnover turnovers
turns turquoise turret turtle turtles tussen tutor tutorial tutorials tutoring tutors tutte tutti
tutto tvalue tweak tweaking tweaks twee tween tweet tweeted tweeting tweets twelve twenties
twentieth twenty twice twig twilight twin twins twist twisted twisting twists twitch twitter tying
tyler tylko type typed typedef typeface typename typeof types typical typically typing typings typo
typography tyranny tyre tyres tyson uart uber ubic ubiquitous ubisoft ubuntu ucfirst uchar ucla uden
uefa uganda ugly uialert uiapplication uibar uibutton uicolor uifont uigraphics uiimage uikit
uilabel uint uintptr uiresponder uistoryboard uiview uiwindow ukrain ukraine ukrainian ulcer ullam
ulong ultimate ultimately ultimo ultr ultra ultrasound umbrella unab unable unacceptable unaffected
uname unanim unanimous unanimously unanswered unary unas unauthorized unavailable unavoidable
unaware unbe unbearable unbelievable unbiased unblock unborn uncategorized uncert uncertain
uncertainties uncertainty unchanged unchecked uncle unclear uncomfortable uncomment uncommon uncomp
uncon unconditional unconscious unconstitutional uncont unconventional uncover uncovered unde undead
undef undefeated undefined undeniable under undercover underestimate underestimated undergo
undergoing undergone undergraduate underground underline underlying undermine underneath underrated
unders underscore underscores underside underst understand understandable understandably
understanding understands understood undert undertake undertaken undertaking underwater underway
underwear underwent undes undesirable undis undo undocumented undone undoubtedly undue uneasy
unemployed unemployment unequal unequiv unesco unethical uneven unexpected unexpectedly unfair
unfamiliar unfavorable unfinished unfold unfolded unfolding unfolds unfore unforgettable unfortunate
unfortunately unge unhappy unhealthy unheard unic unicode unicorn unidad unidades unidentified
unidos unified uniform uniformly uniforms unify unilateral unimagin unin uninstall uninsured unint
unintended uninterrupted union unions uniq uniqu unique uniquely uniqueness unit unite united units
unittest unity univ univers universal universally universe universidad universities university unix
unjust unknow unknown unlaw unlawful unle unleash unleashed unless unlike unlikely unlimited unlink
unload unloaded unlock unlocked unlocking unlucky unmarried unmatched unmist unmistak unnamed
unnatural unnecessarily unnecessary unnoticed unofficial unordered unos unpack unpaid unparalleled
unpleasant unpopular unprecedented unpredict unpredictable unpublished unquestion unravel unre
unreachable unread unreal unrealistic unreasonable unregister unrelated unreliable unresolved unrest
unrestricted unsafe unseen unser unsere unserem unseren unserer unset unsett unsettling unsigned
unspecified unst unstable unstoppable unsub unsubscribe unsuccessful unsupported unsur unsure unsus
unten unter unternehmen unters unterschied until unto untouched untranslated untreated untuk unus
unused unusual unusually unve unveil unveiled unveiling unwanted unwilling unwind unwrap unzip
uobject uomini uomo upbeat upbringing upcoming update updated updater updates updating upfront
upgrade upgraded upgrades upgrading uphe upheld uphill uphol uphold upholstery upkeep uplift
uplifting upload uploaded uploader uploading uploads upon upper uppercase upright uprising upro
upscale upset upsetting upside upstairs upstream uptake uptime upto upward upwards uran uranium
urban urdu urge urged urgency urgent urgently urges urging urinary urine urlencode urllib
urlpatterns urls uruguay usability usable usado usage usando usar usart usda used useful usefulness
useless user userdata userid username usernames users uses usher ushort using usize usps ussr usted
usual usually usuario usuarios utah utan uten utens uterus util utilis utilisateur utilise utiliser
utilities utility utiliz utiliza utilizado utilizando utilizar utilization utilize utilized utilizes
utilizing utils utmost utrecht uttar utter utterly uuid uzbek vacancies vacancy vacant vacation
vacations vacc vaccinated vaccination vaccinations vaccine vaccines vacuum vader vagina vaginal
vague vaguely vagy vain vais vale valencia valent valentine valerie valeur valeurs valid valida
validar validate validated validates validating validation validations validator validators valide
validity valido valign valk vall valle valley valleys valor valore valores vals valu valuable
valuation value valued values valve valves vamos vamp vampire vampires vancouver vand vandal vander
vanderbilt vanessa vanguard vanilla vanish vanished vanity vans vant vape vaping vapor vara varargin
varchar vari variability variable variables variance variant variants varias variation variations
varied varies varieties variety varios various vars vary varying vascular vase vast vastly vatican
vaugh vaughan vault vbox veces vect vector vectors vedere veel vega vegan vegas veget vegetable
vegetables vegetarian vegetation veggies vehicle vehicles veil vein veins velit veloc velocidad
velocities velocity velvet vend venda vending vendor vendors vene vener venez venezuel venezuela
vengeance veniam venice venir venom vent venta ventana ventas vente ventil ventilation vents ventura
venture ventured ventures venue venues venus vera veranst verb verbal verbally verbess verbose
verbosity verbs verd verdad verdade verde verdict verdienen vere verg verge verifica verificar
verification verified verifier verifies verify verifying verizon verk verm vermont vern vernon vero
veronica verr vers versa versatile versatility versch verschied verschiedene verschiedenen verschill
verse verses version versions verso verst versus vert verte vertex vertical vertically vertices
verts verv verw verwenden verwendet very verz vess vessel vessels vest vested vestib veter veteran
veterans veterin veterinarian veterinary veto vetor vets veut veya vezes viability viable viagra
vibe vibes vibr vibrant vibrating vibration vibrations vibrator vice vicinity vicious vict victim
victims victor victoria victorian victories victorious victory vida vide video videoer videog videos
videot vids vieille viel viele vielen vielleicht viene vienna vient vier viet vietnam vietnamese
vieux view viewed viewer viewers viewing viewpoint viewpoints viewport views vigil vigilant vign
vigor vigorous vigorously viii viking vikings viktor vile vill villa village villagers villages
villain villains ville vimeo vinc vince vincent vinci vind vinden vine vinegar vines vintage vinyl
viol violate violated violates violating violation violations violence violent violently violet
violin viral virgin virginia virt virtual virtually virtue virtues virus viruses visa visas visc
visceral viscosity vish visibility visible visibly vision visionary visions visit visita visite
visited visiting visitor visitors visits vista vistas visto visual visualization visualize visually
visuals vita vitae vital vitality vitamin vitamins vite vitro vive vivid vivo vlad vladimir vlan
vmax vmware vnode vocab vocabulary vocal vocalist vocals vocational vodka vogue voice voiced voices
void voir vois voiture voks voksen voksne volatile volatility volcan volcanic volcano volk
volkswagen voll volley volleyball volont volt volta voltage volte volts volum volume volumes volunt
voluntarily voluntary volunte volunteer volunteered volunteering volunteers volupt volver volvo
vomiting vont voor vorhand vortex vote voted voter voters votes voting votre voucher vouchers vous
vowed vowel vowels vows voxel voyage voyager voyeur vrai vraiment vriend vrij vrou vrouw vrouwen
vscode vstack vuel vulgar vulkan vulner vulnerabilities vulnerability vulnerable waar wade wage
wager wages wagner wagon wahl waist wait waited waiter waiting waitress waits waive waived waiver
wake wakes waking waktu wald wales walk walked walker walkers walking walks walkthrough wall wallace
wallet wallets wallpaper wallpapers walls walmart walnut walsh walt walter walters walton wand
wander wandered wandering wang wann wanna want wanted wanting wants warcraft ward wardrobe wards
ware warehouse warehouses waren warfare warm warmed warmer warming warmly warmth warn warned warner
warning warnings warns warp warped warrant warranted warranties warrants warranty warren warrior
warriors wars warsaw wart warto warwick wary wash washed washer washing washington wasm wasn wass
wasser wast waste wasted wastes wastewater wasting watch watchdog watched watcher watchers watches
watching water waterfall waterfront watering waterloo watermark waterproof waters watershed watkins
watson watt watts wave waved waveform wavelength wavelengths waves waving wayne waypoint ways wchar
weak weaken weakened weakening weaker weakest weakness weaknesses wealth wealthy weapon weapons wear
wearable wearer wearing wears weary weather weave weaver weaving webb webcam webdriver weber webhook
webinar weblog webpack webpage webs webseite website websites websocket webster wedding weddings
wedge wednesday weed weeds week weekday weekdays weekend weekends weekly weeks weer wegen weigh
weighed weighing weighs weight weighted weighting weights weil wein weinstein weird weiss weit
weiter weitere welch welche welcome welcomed welcomes welcoming weld welded welding welfare well
wellbeing wellington wellness wells welsh welt wend wendy wenger wenig weniger wenn went werd werde
werden were wereld weren werk werner wert wesley west western westminster weston wget whale whales
what whatever whats whatsapp whatsoever wheat wheel wheelchair wheeler wheels when whenever where
whereabouts whereas whereby wherein wherever whether which whichever while whilst whim whims whip
whipped whipping whirl whisk whiskey whisky whisper whispered whispers whistle whit white whitelist
whites whitespace whitney whoever whole wholes wholesale wholesalers wholesome wholly whom whopping
whose wich wichita wicht wichtig wick wicked wide widely widen widened widening wider wides
widespread widest widget widgets widow width widths wieder wiel wield wien wife wifi wiki wikimedia
wikipedia wild wildcard wildcats wilde wilderness wildfire wildlife wildly wiley wilhelm wilkinson
will willen william williams williamson willie willing willingly willingness willis willow
wilmington wilson wilt wimbledon winapi winchester wind winding window windows winds windshield
windsor windy wine wines wing winger wings wink winn winner winners winning winnings winnipeg wins
winston winter winters wipe wiped wipes wiping wird wire wired wireless wires wiring wirk wirklich
wisconsin wisdom wise wisely wish wished wishes wishing wishlist wissen witch witches with withd
withdraw withdrawal withdrawals withdrawing withdrawn withdrew withheld withholding within without
withstand witness witnessed witnesses witnessing witt witty wives wizard wizards wlan woche wochen
woes wohl wohn wohnung woke wolf wolfe wolfgang woll wollen wollte wolver wolverine wolves woman
womb women womens wonder wondered wonderful wonderfully wondering wonderland wonders wong wont wood
wooded wooden woodland woods woodworking woody wool worcester word worden wording wordpress words
wordt wore work workaround workbook worked worker workers workflow workflows workforce working
workings workload workout workouts workplace workplaces works worksheet worksheets workshop
workshops workspace workstation world worldly worlds worldview worldwide worm worms worn worried
worries worry worrying wors worse worsening worship worst wort worth worthless worthwhile worthy
would wouldn wound wounded wounds woven wrap wrapped wrapper wrappers wrapping wraps wrath wreak
wreck wrench wrest wrestler wrestling wright wrinkles wrist wrists writ writable write writer
writers writes writing writings written wrong wrongdoing wrongful wrongly wrote wrought wszyst wurde
wurden wwii wyatt wykon wyoming wyst xamarin xavier xbox xctassert xctest xelement xhtml xiao xiaomi
xiii xlabel xmax xmin xmlhttp xmlns xpath xperia xpos xrange xtype xunit xxxx yacc yacht yahoo yale
yamaha yaml yang yankee yankees yard yards yarn yeah year yearly years yeast yell yelled yelling
yellow yellowstone yelp yemen yeni yesterday yield yielded yielding yields ying ylabel ylim ymax
ymin yoga yogurt yong york yorker yorkers yorkshire yosemite yosh young younger youngest youngster
youngsters your youre yours yourself yourselves youth youthful youths youtube ypos yuan yummy yuri
yyyy zach zack zahl zaman zambia zdarma zeal zealand zeigen zeigt zeit zelda zelf zend zenith zero
zeros zest zeus zhang zhao zheng zhou zich ziel zien zijn zimbabwe zimmer zimmerman zinc zion
zipcode zipper znaj zoals zodiac zoek zoekt zombie zombies zona zonder zone zones zoning zoom zost
zosta zucker zuckerberg zukunft zurich zusammen zust zwar zwarte zwei zwischen
""".split()  # noqa: SIM905 (a list literal would be four times the size)
)
"""Lowercase words of four or more letters that both encodings hold as one token after a space."""

CAPITALS = frozenset(
    """
ABOUT ABOVE ACCEPT ACCESS ACCOUNT ACTION ACTIVE ADDRESS ADHD ADMIN ADVISED AFTER AGAIN AGRE AIDS
AJAX ALERT ALIGN ALSO ALTER ALWAYS AMAZ ANAL ANSI ANSW APPLICATION APPLY APPRO ARCH AREA ARISING
ARRAY ARTICLE ASAP ASCII ASIC ASSERT ASTM ASUS ATTR ATTRIBUTE AUDIO AUTH AUTHOR AUTHORS AUTO
AVAILABLE BACK BALL BANK BASE BASIC BASIS BDSM BEEN BEFORE BEGIN BELOW BEST BETWEEN BILL BIOS BLACK
BLOCK BLUE BOARD BODY BOOK BOOL BOOLEAN BOOST BORDER BOTH BRAND BREAK BSON BUFFER BUILD BUSINESS
BUTTON BYTE CACHE CALL CALLBACK CAMERA CAPITAL CARD CARE CART CASE CAST CATEGORY CAUSED CCTV CELL
CENT CENTER CERT CHANGE CHANNEL CHAR CHARACTER CHECK CHILD CHIP CHRIST CITY CLAIM CLASS CLEAN CLEAR
CLICK CLIENT CLOCK CLOSE CLOSED CLUB CNBC CODE COLL COLLECTION COLOR COLORS COLUMN COMM COMMAND
COMMENT COMMENTS COMMON COMP COMPANY COMPLETE COMPONENT COMPUT COMPUTER CONCAT CONDITION CONDITIONS
CONF CONFIG CONNECT CONNECTION CONS CONSEQUENTIAL CONST CONSTANT CONT CONTACT CONTENT CONTR CONTRACT
CONTRIBUT CONTRIBUTORS CONTROL COOKIE COPY COPYING COPYRIGHT CORE CORPOR COST COUNT COUNTY COUR
COVER COVID CPPUNIT CREATE CREATED CROSS CRUD CTRL CUDA CURL CURLOPT CURRENT CUSTOM DAMAGE DAMAGES
DARK DATA DATABASE DATE DAYS DCHECK DEAD DEAL DEALINGS DEBUG DECL DEFAULT DEFIN DEFINE DELETE DESC
DESCRIPTION DESIGN DEST DETAILS DEVICE DHCP DIRECT DIRECTORY DISCLAIM DISCLAIMED DISCLAIMER DISP
DISPLAY DIST DISTINCT DOCUMENT DOES DOMAIN DONE DOUBLE DOWN DOWNLOAD DRAW DRIVE DRIVER DROP DWORD
EACH EAST EDGE EDIT EDUC EEPROM EFFECT ELECT ELEMENT ELSE EMAIL EMPTY ENABLE ENERGY ENGINE ENTER
ENTITY ENTRY ENUM ERROR ESPN EURO EVEN EVENT EVENTS EVER EVERY EXEC EXEMPLARY EXISTS EXIT EXPECT
EXPORT EXPRESS EXTRA FACE FACT FAIL FAILED FAILURE FALL FALSE FAMILY FAST FEATURE FEATURES FEMA
FETCH FIELD FIFA FIFO FILE FILTER FINAL FIND FIRE FIRST FITNESS FIXME FLAG FLAGS FLASH FLOAT FOLLOW
FONT FOOD FOOT FORCE FORE FOREIGN FORM FORMAT FOUND FOUR FPGA FRAME FREE FRIEND FROM FRONT FUCK FULL
FUNC FUNCTION FUNCTIONS GAME GDPR GENER GENERAL GENERATED GETGLOBAL GIVEN GLES GLFW GLOBAL GLUT GOLD
GOOD GOODS GOOGLE GPIO GRAPH GRAT GREAT GREEN GRID GROUP GUID GUIDE HALF HAND HANDLE HARD HASH HAVE
HDMI HEAD HEADER HEALTH HEIGHT HELP HERE HERO HIGH HISTORY HOLD HOLDER HOLDERS HOME HOST HOUSE
HOWEVER HRESULT HTML HTTP HTTPS HUGE HVAC HWND ICON IDEA IDENT IEEE IMAGE IMPLEMENT IMPLIED IMPORT
IMPORTANT INCIDENT INCIDENTAL INCLUDE INCLUDED INCLUDING INDEX INDIRECT INFO INFORMATION INIT
INITIAL INLINE INNER INPUT INSERT INST INSTALL INSTANCE INTEGER INTER INTERN INTERNAL INTERNATIONAL
INTERRUPTION INTO INVALID ISBN ISIS ISSUE ITEM ITEMS ITER JACK JADX JAVA JAXB JDBC JNICALL JOHN JOIN
JPEG JSON JUST KEEP KIND KING KNOW LABEL LAND LANG LANGUAGE LARGE LAST LDAP LEFT LEGO LENGTH LESS
LETTER LEVEL LGBT LGBTQ LGPL LIABILITY LIABLE LICENSE LIFE LIGHT LIKE LIMIT LIMITED LINE LINK LIST
LIVE LLVM LOAD LOCAL LOCATION LOCK LOGGER LOGIN LONG LOOK LOOP LORD LOSS LOVE LOWER LPARAM MACHINE
MADE MAGIC MAIL MAIN MAKE MANAGEMENT MANY MARK MART MASK MASS MASTER MATCH MATERIAL MATLAB MATRIX
MEDIA MEDIATEK MEMBER MEMORY MENU MERCHANTABILITY MESSAGE META METHOD METHODS MICRO MIDI MILL MIME
MISS MOCK MODE MODEL MODIFY MODULE MONEY MONTH MORE MOST MOTOR MOVE MPEG MQTT MSNBC MUCH MULT MUSIC
MUST MYSQL NAME NAND NASA NASCAR NATIONAL NATO NCAA NEED NEGLIGENCE NETWORK NEVER NEWS NEXT NIGHT
NOAA NODE NONE NONINFRINGEMENT NORMAL NORTH NOTE NOTES NOTHING NOTICE NSURL NULL NUMBER NVIDIA
OBJECT OECD OFFSET OLED OMIT ONLINE ONLY OPEN OPER OPTION OPTIONAL OPTIONS ORDER ORIGINAL OTHER
OTHERWISE OUTPUT OVER OWNER PACK PACKAGE PAGE PANEL PARA PARAM PARAMETERS PARK PART PARTIC
PARTICULAR PARTY PASS PASSWORD PATCH PATH PEOPLE PERF PERFORMANCE PERSON PHONE PHOTO PICK PIPE PLACE
PLAN PLATFORM PLAY PLAYER PLEASE PLUS PMID POINT POINTER PORT POSITION POSS POSSIBILITY POST POWER
PREF PREFIX PRES PRESS PRICE PRIMARY PRINT PRIV PRIVATE PROC PROCESS PROCUREMENT PRODUCT PRODUCTS
PROF PROFILE PROFITS PROGRAM PROJECT PROM PROP PROPERTY PROVID PROVIDED PTSD PUBLIC PURE PURPOSE
PUSH QCOMPARE QUAL QUERY QUEST QUESTION QUICK QVERIFY RADIO RAID RAND RANDOM RANGE RATE READ README
READY REAL REALLY RECE RECEIVE RECORD RECT REFER REFERENCES REGION REGISTER RELATED RELEASE REMOVE
REPORT REPRESENT REQUEST REQUIRE REQUIRED RESERVED RESET RESOURCE RESP RESPONS RESPONSE REST RESULT
RESULTS RETURN RETURNS REVIEW RFID RIGHT RIGHTS ROAD ROCK ROLE ROOM ROOT ROUND ROUT RSVP RTWF RULE
SAFE SALE SAME SAMPLE SATA SAVE SCALE SCHOOL SCIP SCORE SCREEN SCRIPT SDLK SEARCH SECOND SECRET
SECTION SECURITY SEEK SELECT SELF SEND SENSOR SENT SERIAL SERIES SERVER SERVICE SERVICES SESSION
SETTINGS SHALL SHARE SHIFT SHIPPING SHOP SHORT SHOULD SHOW SIDE SIGN SIGNAL SIMD SIMPLE SINGLE SITE
SIZE SLOT SMALL SMART SMTP SNAP SOAP SOCIAL SOCK SOCKET SOFTWARE SOLD SOME SORT SOUND SOUR SOURCE
SOUTH SPACE SPDX SPEC SPECIAL SPEED SPELL SPORT SQLITE STACK STANDARD STAR START STAT STATE STATES
STATIC STATUS STDCALL STDERR STDMETHOD STDMETHODCALLTYPE STEM STEP STILL STOCK STOP STORAGE STORE
STORY STREAM STREET STRICT STRING STRUCT STUD STYLE SUBJECT SUBSTITUTE SUCCESS SUCH SUMMARY SUPER
SUPPORT SWITCH SYMBOL SYSTEM TABLE TAKE TARGET TASK TCHAR TEAM TECH TECHNO TELE TEMP TEMPLATE TERM
TERMIN TERMS TEST TEXT THAN THANK THAT THEIR THEM THEN THEORY THERE THESE THEY THINK THIRD THIS
THREAD THREE THROUGH THROW TIFF TILE TIME TIMER TIMES TITLE TODAY TODO TOKEN TOOL TORT TOTAL TOUCH
TOUR TRACE TRACK TRAIN TRAN TRANS TREE TRUE TURN TYPE TYPES TYPO UART UCLA UEFA UINT ULONG UNDER
UNESCO UNION UNIQUE UNIT UNITED UNITY UNIVERS UNIVERSITY UNIX UNKNOWN UNUSED UPDATE UPDATED USART
USDA USED USER USERS USING USPS USSR UTIL UUID VALID VALUE VALUES VARCHAR VARIABLE VARIABLES VECTOR
VERIFY VERSION VERY VIDEO VIEW VIII VLAN VOID WAIT WALL WANT WARN WARNING WARRANT WARRANTIES
WARRANTY WATCH WATER WCHAR WEEK WELL WEST WHAT WHEN WHERE WHETHER WHICH WHITE WIDTH WIFI WILL WINAPI
WINDOW WINDOWS WITH WITHOUT WLAN WORD WORK WORLD WRITE WRONG WWII XHTML XIII YAML YEAR YEARS YORK
YOUR YYYY ZERO
""".split()  # noqa: SIM905
)
"""Words of four or more capitals that both encodings hold as one token after a space."""

SHORT_CAPITALS = frozenset(
    """
AA AAA AAC AB ABC ABI ABS AC ACA ACC ACE ACK ACL ACM ACS ACT AD ADA ADC ADD ADM ADS ADV AE AES AF
AFC AFF AFL AFP AG AGE AH AI AIM AIR AIS AJ AK AL ALL ALS ALT AM AMA AMC AMD AMP AMS AN ANC AND ANN
ANT ANY AO AOL AP APA APC API APK APP APR APS AQ AR ARC ARE ARG ARM ARR ART AS ASA ASC ASD ASE ASF
ASM ASN ASP ASS AST AT ATA ATH ATI ATL ATM ATP ATS ATT ATV AU AUD AUG AUT AUX AV AVC AVG AVL AVR AW
AWS AX AZ BA BAB BAD BAL BAM BAR BAS BAT BB BBB BBC BBQ BC BCE BCH BCM BD BE BED BEL BEN BER BET BF
BFS BG BH BI BIG BIN BIO BIT BJ BJP BK BL BLE BM BMI BMP BMW BN BO BOT BOX BP BPM BR BRA BRE BRO BS
BSD BSP BST BT BTC BTN BTS BU BUF BUG BUS BUT BUY BV BW BX BY CA CAB CAD CAL CAM CAN CAP CAR CAS CAT
CB CBC CBD CBS CC CCC CCD CCP CCS CD CDC CDN CE CEL CEO CES CET CF CFG CFL CFO CFR CG CGI CH CHE CI
CIA CID CIF CIM CIS CIT CJ CK CL CLI CLK CLR CM CMD CMP CMS CN CNC CNN CNS CO COD COL COM CON COP
COR COS CP CPA CPC CPF CPI CPL CPP CPR CPS CPU CR CRA CRC CRE CRM CRS CRT CS CSA CSC CSI CSL CSP CSR
CSS CST CSV CT CU CUR CUT CV CVS CW CWE CX CY CZ DA DAC DAG DAL DAM DAN DAO DAR DAT DAY DB DBG DC DD
DDR DDS DE DEA DEC DEF DEL DEM DEN DER DES DET DEV DF DFA DFS DG DH DHS DI DID DIE DIG DIM DIN DIR
DIS DIV DIY DJ DK DL DLC DLL DM DMA DN DNA DNS DO DOC DOE DOI DOJ DOM DON DOS DOT DP DPI DPR DPS DR
DRM DS DSL DSM DSP DST DT DTO DU DUI DUP DV DVD DVR DW DX DY EA EAR EB EC ECB ECC ECM ECS ED EDM EDT
EE EEG EF EFI EG EGL EH EI EIF EL ELF EM EMC EMP EMS EN ENC END ENG ENT ENV EO EOF EOS EP EPA EPS EQ
ER ERA ERC ERP ERR ES ESA ESC ESL ESP EST ET ETA ETF ETH EU EUR EV EVP EVT EW EX EXP EXT EZ FA FAA
FAC FAG FAQ FAR FAT FB FBI FC FCC FD FDA FE FF FFT FG FH FHA FI FIG FIL FIN FIR FIT FIX FK FL FM FN
FO FOR FOX FP FPS FR FRE FS FSM FT FTC FTP FU FUN FW FX FY GA GAL GAM GAP GAR GAS GB GBP GC GCC GD
GDP GE GEN GEO GER GET GF GFP GG GH GI GIF GIR GIS GK GL GM GMC GMO GMT GN GNU GO GOD GOP GOT GP GPA
GPL GPS GPU GR GRE GS GSM GST GT GTA GTK GTX GU GUI GV GW GX HA HAL HAR HAS HB HBO HC HD HDD HDR HE
HEL HER HEX HF HG HH HI HID HIM HIP HIS HIT HIV HK HL HM HMS HO HOL HOR HOT HOW HP HPV HQ HR HS HSV
HT HTC HUD HV HW HY IA IAM IB IBM IC ICC ICE ICO ICT ICU ID IDC IDE IDM IDS IDX IE IF IG IGN IH II
IID III IK IL IM IMF IMG IMM IMO IMP IMS IN INA INC IND INF INS INT INV IO IOC IOS IP IPA IPC IPL
IPO IPS IPT IPV IQ IR IRA IRC IRQ IRS IS ISA ISC ISO ISP ISR ISS IST IT ITS ITV IU IV IW IX JA JAN
JB JC JD JE JFK JJ JK JL JM JMP JNI JO JOB JP JPG JR JS JSX JT JUL JV JVM JW JWT KA KB KC KD KDE KE
KEY KG KH KK KL KM KN KO KP KR KS KT KV KW KY LA LAB LAN LAP LAS LAT LAW LB LC LCD LD LDL LDS LE LED
LEG LEN LES LET LF LG LH LI LIB LIC LIN LIS LJ LL LLC LLP LM LN LNG LO LOC LOG LOL LOS LOT LOW LP
LPC LR LS LSD LSU LT LTC LTD LTE LU LUA LV LW LX LY MA MAC MAD MAG MAK MAL MAN MAP MAR MAS MAT MAV
MAX MAY MB MBA MC MCC MCP MCU MD MDB ME MED MEM MEN MER MES MET MF MG MGM MH MI MIC MID MIL MIN MIS
MIT MIX MJ MK ML MLA MLB MLM MLS MM MMA MMC MMM MMO MN MO MOD MOM MON MOR MOS MOT MOV MOZ MP MPC MPG
MPH MPI MPL MPU MQ MR MRI MS MSC MSD MSG MSI MSM MSP MSS MST MT MTV MU MUT MV MVC MVP MW MX MY NA
NAN NAS NAT NAV NB NBA NBC NC ND NE NEC NEG NES NET NEW NF NFC NFL NG NGO NH NHL NHS NI NIC NIH NIL
NJ NK NL NM NN NO NOI NOM NON NOR NOT NOW NP NPC NPR NR NRA NRF NS NSA NSF NSK NSS NST NSW NT NTN NU
NUM NV NW NX NY NYC NZ OA OB OBJ OBS OC OCC OCD OCI OCR OCT OD OE OEM OF OFF OG OH OK OL OLD OM OMG
OMX ON ONE OO OP OPC OPS OPT OR ORD ORM OS OSC OSS OST OSX OT OTA OTP OU OUR OUT OV OW OWN PA PAC
PAD PAL PAN PAR PAS PAT PAY PB PBS PC PCA PCB PCI PCM PCR PCS PD PDF PDO PDT PE PED PEM PEN PER PET
PF PG PGA PH PHP PHY PI PIC PID PIE PIL PIN PIT PIX PJ PK PL PLA PLC PLL PM PMC PN PNG PO POD POL
POP POR POS POT POV POW PP PPC PPP PQ PR PRE PRI PRO PS PSA PSD PSG PSI PSP PST PSU PT PTR PU PUB
PUR PUT PV PVC PW PWM PX PY QA QB QC QE QQ QR QS QT QU QUE QUI RA RAD RAF RAM RAT RAW RB RBI RC RCA
RCC RD RDF RE REC RED REF REG REL REM REP RES RET REV RF RFC RG RGB RH RHS RI RID RIP RJ RK RL RM
RMS RN RNA RNG RO ROC ROI ROM ROS ROT ROW RP RPC RPG RPM RR RS RSA RSS RT RTC RTL RTP RTS RU RUN RV
RVA RW RX SA SAC SAF SAL SAM SAN SAP SAR SAS SAT SAX SAY SB SC SCC SCH SCI SCM SCO SCP SCR SCT SD
SDK SDL SDS SE SEA SEC SEE SEG SEL SEM SEN SEO SEP SER SES SET SEX SF SG SGD SH SHA SHE SHR SI SID
SIG SIL SIM SIN SIP SIX SJ SK SKF SKU SL SM SMA SMB SME SMP SMS SN SNP SO SOC SOL SOM SON SOP SOS SP
SPA SPD SPE SPF SPI SPL SPR SQ SQL SR SRC SS SSA SSC SSD SSE SSH SSL SSP SSR SST ST STA STD STE STL
STM STR SU SUB SUM SUN SUP SUR SUS SUV SV SVG SVN SW SWT SX SY SYN SYS SZ TA TAB TAG TAM TAR TAS TAX
TB TBD TC TCL TCP TD TE TED TEM TEN TER TEX TF TFT TG TH THC THE TI TIM TJ TK TL TLC TLS TM TMP TMZ
TN TNT TO TOD TOK TOM TOO TOP TOR TP TPM TR TRE TRI TRY TS TSA TSR TT TTC TTL TU TV TW TWO TX TXT TY
TZ UA UAE UAV UB UC UCS UD UDP UE UF UFC UFO UI UID UIF UIG UIL UIP UIS UIT UK UL UM UN UNC UNS UNU
UP UPC UPS UR URI URL US USA USB USC USD USE USS UT UTC UTF UV UW UX VA VAL VAN VAR VAT VB VC VE VER
VF VG VGA VH VI VIA VIC VID VII VIN VIP VIR VIS VK VL VLC VM VN VO VOC VOL VP VPN VR VS VT VW VX WA
WAL WAN WAR WAS WAV WAY WB WC WD WE WEB WF WG WH WHO WHY WI WIN WK WL WM WOM WON WOW WP WR WS WT WTF
WTO WV WW WWE WWW WX XB XC XCT XD XF XI XII XIV XK XL XM XML XO XOR XP XR XS XT XV XVI XX XXX XY XYZ
YA YE YES YM YOU YY ZIP ZX ZZ
""".split()  # noqa: SIM905
)
"""The 1,460 words of two or three capitals that both encodings hold as one token after a space
(``API``, ``SQL``, ``JFK``); another (an airport code, a ticker, an id: ``IAH``, ``XQZ``) is two tokens
(after a mark the mark takes the first letter: ``"SFO"`` is ``"S``, ``FO``, ``"``)."""

SHORT_WORDS = frozenset(
    """
aa aaa aan ab aba abb abc abi abl abs aby ac acc ace ach ack acl act ad ada adb adc add ade adj adm
ado adr ads adv ae aer aes af aff afl afr aft ag age agg ago agr ah ai aid ail aim ain aio air ais
aj ak aka ako akt aku al alb alc ald ale alf alg ali alk all alm alo als alt am ama amb amd ami amo
amp amt amy an ana anc and ang ani ank ann ano ans ant anv anx any anz ao aos ap apa ape aph api apk
apl apo app apr apt aqu ar arb arc ard are arg ark arm arp arr art ary as asc ash asi ask asm ass
ast at ata ate ath atl atm atr att au auc aud auf aug aun aur aus aut aux av ava ave avg avi aw awe
awk aws ax axe axs ay az azi azt ba bab bac bad bag bah baj bak bal bam ban bar bas bat bay baz bb
bbw bc bcm bd be beb bed bee bef beg beh bei bek bel bem ben ber bes bet bev bew bey bez bf bfs bg
bh bi bib bic bid bif big bij bik bil bin bio bip bir bis bit biz bj bk bl bla ble bli blk blo bm
bmi bmp bn bo boa bob bod bog bol bom bon boo bor bos bot bou bow box boy bp bpm bpy br bra bre bri
bro bru bs bst bt btc btn btw bu bub buc bud buf bug bul bum bun bur bus but buy buz bv bw bx by bye
bz bzw ca cab cac cad caf cal cam can cap car cas cat cav caz cb cbd cbo cc cd cds ce cel cen cep
cer ces cet cf cfg cg ch cha che chi chk cho chr chu ci cic cid cif cig cil cin cir cis cit civ cj
ck cl cla cle clf cli clk clo clr cls cm cmb cmd cmp cms cn cnn cnt co cob coc cod cof cog coh col
com con cop cor cos cot cou cov cow coy coz cp cpf cpp cps cpu cq cr cra crc cre cri cro crt cru cry
cs csr css csv ct ctl ctr ctx cu cub cuc cud cue cui cuk cul cum cup cur cus cut cuz cv cvs cw cwd
cx cy cyc cyl cyn cyt cz czy da dab dac dad dag dah dai dak dal dam dan dao dap dar das dat dau dav
day db dbc dbg dbl dbo dc dd ddl de deb dec ded dee def deg dei dej del dem den dep der des det dev
dew dex dez df dfs dg dgv dh dhe di dia dib dic did die dif dig dik dil dim din dio dip dir dis dit
div diy diz dj dk dl dla dlg dll dm dma dmg dn dna dni dns do dob doc dod doe dog doi dok dol dom
don dop dor dos dot dou dov dow dp dpi dq dr dra dre dri drm dro drv dry ds dsp dst dt dto du dua
dub due dug duk dul dum dun duo dup dur dus dut dv dvd dw dx dy dye dyn dys dz dzi ea eag ear eas
eat eax eb ec ecc ech eco ecs ect ed edi edm edt edu ee een eer ef eff eg egg ego egy eh ei eid eig
ein ej ek eks el ela ele elf elk ell elm elo els elt em emb emo emp en enc end enf eng enh enn enr
ens ent env eo eof eos ep eps eq eql equ er era erb ere erf erg erh erk erm ern ero err ers eru erv
erw ery es esa esc ese esi esk eso esp ess est et eta etc eth ett eu eup eux ev eve evt ew ex exc
exe exh exp ext ey eye ez fa fab fac fal fam fan far fas fat fav fax faz fb fc fd fe fec fed fee fel
fem fen fer fet feu few ff ffi fft fg fh fi fib fic fid fie fif fig fil fim fin fir fis fit fix fiz
fj fk fl fla fld fle flo flu fly fm fmt fn fo foc fod foe fog foi fol fon foo for fos fot fou fox fp
fps fq fr fra fre fri frm fro fry fs fst ft ftp fu fue fug ful fun fur fus fut fv fw fx fy ga gab
gad gag gal gam gan gap gar gas gay gaz gb gbc gc gcc gcd gd gdy ge geb ged gee gef geg geh gek gel
gem gen geo gep ger ges get gev gew gez gf gfx gg gh gi gia gib gid gif gig gim gin gio gir git gj
gl gle gli glm glo glu gly gm gn go gob god gol gon goo gor got gou gov gp gps gpu gql gr gra grd
gre gri gro grp gs gsl gst gt gtk gu gui gul gum gun gut guy gv gw gx gy gym gyr gz ha hab hac had
hai hak hal ham han hap har has hat hav hay haz hb hc hd hdr he heb hed heg hei hel hem hen hep her
hes het hex hey hf hg hh hi hic hid hij hil him hin hip his hit hj hk hl hm hmm hn ho hob hoc hod
hoe hog hol hom hon hop hor hos hot how hoy hp hr hrs hs hsv ht htt hu hub hud hue hug huh hum hun
hur hus hut hv hva hw hx hy hym hyp ia iam iar ib ic ice ich ici icy id ide idi ids idx ie if iff ig
ign ih ihm ihn ihr ii iid iii ij ik il ile ili ilk ill ils im ima imb ime img imm imp ims imu in inc
ind ine inf ing inh ini inj ink inn inp ins int inv io iod ion ios ip ipc ips ipv iq ir ire irm irq
irr is isa isc ise isi isl isn iso isp iss ist it ith itk itm itr its itu iv ive iw ix iy iz ja jab
jac jag jak jal jam jan jap jar jav jaw jb jc jd je jed jeg jej jel jer jes jet jeu jew ji jig jim
jit jj jl jm jo job joe jog jon jos jot jou jov joy jp jpg jq jr js jsx jt ju jub jud jue jug jul
jun jur jus jwt ka kab kad kak kal kam kan kao kap kar kas kat kay kaz kb kc kd ke ked kel kem ken
kep ker kes ket key kg kh khi kho ki kid kil kim kin kir kit kj kk kl kla kle km kms kn kne ko kob
kod kok kol kom kon kop kor kos kot kp kr kra kre ks ksi kt ku kuk kul kun kup kur kut kv kw ky kz
la lab lac lad lag lah lak lam lan lap lar las lat lav law lax lay laz lb lbl lbs lc lcd ld lda ldc
le led lee leg lei lem len leo ler les let lev lex ley lf lg lh lhs li lia lib lic lid lie lif lig
lij lik lil lim lin lip lis lit liv lj lk ll lle lm ln lng lo lob loc lod log loi lok lol lon lor
los lot lou lov low lp lr ls lst lt ltd lu lua lub luc lud lug lui luk lul lum lun lup lur lut lux
luz lv lvl lw lx ly lyn lyr lys ma mac mad mag mah mai maj mak mal mam man map mar mas mat mau mav
max may mb mc md mdi mdl me mec med mee meg mej mel mem men mer mes met meu mex mez mf mg mga mgr mh
mi mia mic mid mie mig mij mik mil mim min mio mip mir mis mit mix mj mk ml mlx mm mn mo mob moc mod
mog moi mol mom mon moo mop mor mos mot mou mov moy moz mp mpg mph mpi mpl mq mr ms mse msg msm mt
mu muc mud mug muj mul mum mun mur mus mut mux muy mv mw mx my mys mz na nab nad nag nah naj nak nal
nam nan nao nap nar nas nat nau nav naw naz nb nbr nc nd ne neb nec ned nef neg neh nei nel nem nen
neo nep ner net neu new nex nf nfl ng nga ngx nh ni nib nic nid nie nig nik nil nim nin nip nir nit
nj nk nl nm nn no nob noc nod noe nog noi nok nom non nop nor nos not nou nov now np npc npm nr ns
nt nth nto nu nud nue nug num nun nur nut nv nw nx nxt ny nya nye nz oa oak oat ob obe obj obl obr
obs obt oc occ och oct od odd ode odp oe of off ofs oft og ogl ogr oh oi oid oil ok ol old ole oli
om oma omn omp on onc one ons ont oo ook op opc opp opr ops opt or ora orb ord ore org ori orm orn
oro ort os osc osg osp oss ost ot otp ott ou oud oui our out ov ow owe owl own ox oxy oy oz pa pac
pad pag pai paj pak pal pam pan pap par pas pat pau pav paw pay paz pb pc pcb pci pcl pcm pcs pct pd
pdb pdf pe pea pec ped pee peg pel pem pen pep per pes pet peu pew pf pg ph phi php phy pi pic pid
pie pig pii pij pik pil pin pip pir pis pit piv pix pj pk pkg pkt pl pla plc ple pll pls plt ply pm
pn pne png pnl po pob poc pod pog poi poj pok pol pom pon poo pop por pos pot pou pov pow poz pp ppl
ppm ppt pq pr pra pre pri prm pro prv pry prz ps psi pst psy psz pt ptr pts pu pub pud pul pun pup
pur pus put pv pw pwd pwm px py pyl pym pys pyt qa qb qc qed qi qos qp qq qr qry qs qt qty qu qua
que qui quo qw ra rab rac rad rag raj rak ram ran rap rar ras rat rav raw ray raz rb rc rd rdf rdr
re reb rec red ref reg rej rek rel rem ren rep req rer res ret rev rew rex rez rf rg rgb rh rhe rho
rhs ri rib ric rid rif rig rij rim rin rio rip ris rit riv rk rl rm rms rn rnd rng ro rob roc rod
rog roi rol rom ros rot rou row roy roz rp rpc rpm rpt rq rr rs rsa rsp rss rst rt rtc rte rtl rtn
ru rua rub rud rue rug rum run rus rut rv rw rx ry rz sa sab sac sad saf sag sai sak sal sam san sap
sar sat sau sav saw sax say sb sc sce sch sci scl scm sco scr sd sdf sdk se sea sec sed see seg seh
sei sek sel sem sen seo sep seq ser ses set seu sew sex sez sf sg sh sha she shm sho shr shy si sia
sic sid sie sig sik sil sim sin sip sir sis sit six siz sj sk ska skb ske ski skl sku sky sl sla sle
slo slu sm smb sme smo sms sn snd sne sno sns so sob soc sod sof sog sok sol som son soo sop sor sos
sou sow soy sp spa spe sph spi spl spo spp spr spy sq sql squ sr src srv ss ssh ssl st sta std ste
stk stm sto str sts stu sty su sua sub suc sud sue suf sug sui suk sul sum sun suo sup sur sus sut
sv svc sve svg svm svn svo sw swe swo sx sy sym syn sys sz szy ta tab tac tad tag tah tai tak tal
tam tan tap tar tas tat tau tav tax tb tbl tc tcp td te tea ted tee teg teh tej tek tel tem ten tep
ter tes tet tex tf tg tgt th tha the thi tho thr thu thy ti tic tid tie tik til tim tin tip tir tit
tj tk tl tls tm tmp tn to tob toc tod toe tog toi tok tol tom ton too top tor tot tou tow tox toy tp
tph tpl tq tr tra tre trg tri tro trx try ts tsl tsp tst tt ttk ttl tty tu tua tub tud tug tul tum
tun tuo tup tur tus tut tv tw twe two tx txn txt ty tym typ tyr tys tz ua ub uc ucz ud udp ue uf ug
ugl uh ui uid uit uk ul ull ult um uma umb ump un una unc und une unf ung unh uni unk unl unm unn
uno unr uns unt unw up upd upp ups upt ur urb ure urg uri url urn us usa usb use uso usr ust usu ut
utc utf uu uur uv uw ux uy uz va vac vad vag vai vak val van vap var vas vat vb vc vd ve vec ved veg
veh vej vel vem ven ver ves vet vex vez vf vg vh vi via vib vic vid vie vig vil vim vin vip vir vis
vit viv viz vk vl vm vn vo voc vog voi vol vom von vor vos vot vou vow vox voy voz vp vpn vr vra vs
vt vtk vu vue vul vv vw vx vy vz wa wag wah wal wan war was wat wav wax way wb wc wd we web wed wee
weg wei wel wen wer wes wet wf wg wh whe who why wi wid wie wig wij wik wil win wir wis wit wk wl wm
wn wnd wo wol wom won woo wor wow wp wr ws wsp wsz wt wur ww www wx wy wym wyn wys wz xa xb xc xd xe
xen xf xhr xi xl xm xml xmm xn xo xor xp xr xs xsi xt xu xv xx xxx xy xyz ya yak yan yap yaw yay yaz
yc ydk ye yen yer yes yet yg yi yii yn yo yog yok yol you yp yr yrs ys yt yum yup yy za zab zad zag
zaj zak zal zam zap zar zaw zb zd ze zen zer zg zh zi zie zig zij zip zk zm zn zo zoo zou zs zu zug
zum zun zur zus zw zwe zx zz zza
""".split()  # noqa: SIM905
)
"""The 2,546 lowercase words of two or three letters that both encodings hold as one token
after a space (``the``, ``and``, ``na``); another (``nke``, ``ihe``, ``qx``) is two tokens."""

COMMON_PAIRS = frozenset(
    """
ab ac ad af ag ai ak al am an ap ar as at au av aw ay ba be bi bl bo br bs bu ca cc ce ch ci ck cl
co cr ct cu cy da dd de di dl do dr ds du ea eb ec ed ee ef eg ei el em en eo ep eq er es et eu ev
ew ex ey fa fe ff fi fl fo fr ft fu ga ge gg gh gi gl gn go gr gs gu ha he hi ho hr ht hu hy ia ib
ic id ie if ig il im in io ip ir is it iv iz ja je jo ju ka ke ki ks la ld le li ll lo ls lt lu ly
ma mb me mi mm mo mp ms mu na nc nd ne nf ng ni nk nn no ns nt nu nv ny oa ob oc od of og oi ok ol
om on oo op or os ot ou ov ow pa pe ph pi pl po pp pr ps pt pu qu ra rb rc rd re rg ri rk rl rm rn
ro rp rr rs rt ru rv ry sa sc se sh si sk sl sm so sp ss st su sy ta tc te th ti tl to tr ts tt tu
ty ua ub uc ud ue ug ui ul um un up ur us ut va ve vi vo wa we wi wn wo xp xt ye ys ze
""".split()  # noqa: SIM905
)
"""The 260 letter pairs most frequent in ``WORDS`` (counted once per place in a word): a run of
letters whose pairs are mostly not here is random (a key, an id), not a word (``tokens._random_letters``)."""
